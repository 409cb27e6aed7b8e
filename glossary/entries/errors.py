"""What a malformed entry raises: the file, the key, what was expected and found."""

from __future__ import annotations

from pathlib import Path


class EntryError(Exception):
    """A malformed entry: names the file and the key, says what was expected and found."""

    def __init__(self, path: Path | str, key: str, message: str) -> None:
        where = f"{path}" + (f", key '{key}'" if key else "")
        super().__init__(f"{where}: {message}")
        self.path = str(path)
        self.key = key
        self.message = message

    def __reduce__(self):  # a worker's error reaches the build as it was raised (glossary.entries.parallel)
        return (type(self), (self.path, self.key, self.message))


class EntryErrors(EntryError):
    """Every malformed entry of a folder at once, so one bad file does not hide the others."""

    def __init__(self, errors: list[EntryError]) -> None:
        Exception.__init__(self, "\n".join(str(e) for e in errors))
        self.errors = list(errors)
        self.path = errors[0].path
        self.key = errors[0].key
        self.message = "\n".join(str(e) for e in errors)

    def __reduce__(self):
        return (type(self), (self.errors,))
