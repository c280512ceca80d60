"""The service layer: command line, FastAPI app, pages and persistence; composes vision and engine."""
