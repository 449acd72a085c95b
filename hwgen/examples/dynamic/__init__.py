"""Programs whose stream traffic depends on data (closed streams, ``for v in s:``): the
interpreter runs them (``hwgen check``); hardware does not build them yet."""
