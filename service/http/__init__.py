"""The HTTP edge: the Litestar app, one controller per resource, the dependencies handlers are
given, the one map from refusals to problem+json, and the finished OpenAPI document."""
