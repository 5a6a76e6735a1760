"""Records to and from protobuf, job environments and mail: the controller's translations.
"""
