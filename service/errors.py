"""The service's own error: a message fit to show a user, and the HTTP status that says why."""


class ServiceError(ValueError):
    """A request the service cannot carry out (the ledger's 404, 409, 401 ...)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status
