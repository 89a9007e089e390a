"""CDK app for Focal: one stack per tenant environment."""

from focal_infra import paths as _paths  # noqa: F401  (puts functions/ on sys.path first)
