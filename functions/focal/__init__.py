"""Focal: an alignment engine for customer-facing conversational agents."""
