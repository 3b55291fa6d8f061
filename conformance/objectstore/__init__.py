"""Object-store support for the suite: an S3 server on this machine and its pytest fixtures."""
