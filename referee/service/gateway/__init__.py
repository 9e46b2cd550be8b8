"""The HTTP/JSON gateway of ``referee serve --http PORT``: :class:`.app.Gateway` serves it,
:mod:`.methods` finds the RPCs in the proto, :mod:`.errors` writes Connect errors, :mod:`.sse`
the streams, :mod:`.openapi` the OpenAPI document."""
