"""Focal: an alignment engine for customer-facing conversational agents."""

from focal.native_threads import pin_native_threads

pin_native_threads()  # before anything imports numpy: its BLAS pool reads the variables once, at load
