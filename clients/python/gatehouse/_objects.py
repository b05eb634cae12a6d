"""Response objects with attribute access, like the OpenAI SDK's: ``r.choices[0].text``."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, Mapping, Tuple


class GatehouseObject:
    """A JSON object read by attribute (``r.usage.total_tokens``) or by key (``r["usage"]``).

    A field the answer does not contain reads as ``None`` (as an optional field does in the OpenAI
    SDK), so ``chunk.choices[0].delta.content or ""`` works on every chunk of a chat stream.
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_data", {key: _wrap(value) for key, value in data.items()})

    def __getattr__(self, name: str) -> Any:
        # Private and dunder names must raise, or copy, pickle and hasattr probes would misbehave.
        if name.startswith("_"):
            raise AttributeError(name)
        return self._data.get(name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Gatehouse response objects are read-only")

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, GatehouseObject):
            return self.to_dict() == other.to_dict()
        if isinstance(other, Mapping):
            return self.to_dict() == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable-looking data: unhashable, like a dict

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def to_dict(self) -> Dict[str, Any]:
        """The answer as plain dicts and lists, for ``json.dumps`` or logging."""
        return {key: _unwrap(value) for key, value in self._data.items()}

    def __repr__(self) -> str:
        return f"GatehouseObject({self.to_dict()!r})"

    def __dir__(self) -> Iterable[str]:
        # Field names first, so a REPL completes `r.choi` to `r.choices`.
        return [*self._data, "get", "to_dict"]

    def __reduce__(self) -> Tuple[Any, Tuple[Dict[str, Any]]]:
        # Rebuilt from plain data: the default protocol would set slots, which __setattr__ forbids.
        return (GatehouseObject, (self.to_dict(),))


def _wrap(value: Any) -> Any:
    if isinstance(value, Mapping):
        return GatehouseObject(value)
    if isinstance(value, list):
        return [_wrap(item) for item in value]
    return value


def _unwrap(value: Any) -> Any:
    if isinstance(value, GatehouseObject):
        return value.to_dict()
    if isinstance(value, list):
        return [_unwrap(item) for item in value]
    return value
