"""The local auth agent (sackd's role): CLIs hand it RPCs over a unix socket,
it signs a credential for the caller's kernel-verified uid/gid and forwards the
call over gRPC. CLIs therefore never import grpc and never see the key."""
