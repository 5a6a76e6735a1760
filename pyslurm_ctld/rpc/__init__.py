"""The controller's gRPC servicers and what they report: parse the message, check who asks, one
core call, commit, reply.
"""
