"""HTTP routes (FastAPI routers), one module per resource."""
