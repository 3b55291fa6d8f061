"""The conformance cases: loading, running, comparing and generating them."""
