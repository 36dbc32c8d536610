"""One codec for every family of events: the engine's, the server's and the tournaments'.

An event type is registered once, with its type name and its version, in :data:`CODEC`:

* a typed class (a frozen dataclass with ``TYPE`` and ``VERSION`` class attributes, usually a
  :class:`Recorded`): its stored data is derived from its typed fields. Each field is written
  under its own name; a field made with :func:`recorded_when_set` is left out while it holds its
  default (or while its ``when`` test fails), a field with :data:`INLINED` metadata spreads a
  nested dataclass's fields into the event's own data. str, int, bool, None-able, tuples, lists, dicts,
  enums and nested dataclasses are understood; a value type with a wire form of its own (a
  pairing is a plain list of seats) is taught once with :meth:`EventCodec.value_type`.
* an engine record (a ``TypedDict`` of ``engine.game.events``): the engine builds and folds its events
  as plain dicts (the hot path stays as it is), so only reading goes through here: its data is
  upcast and handed back as the dict it is.

Versions: data written at version 1 carries no version (every event stored before versions
existed is version 1, byte for byte, so its hash is unchanged); data written at a later version
carries ``"v": n``. On reading, the upcasters registered for the type turn an older shape into
the current one, one version at a time. Data without ``"v"`` passes first through the type's
version-0 upcaster, if it has one: version 0 names the shapes older writers left without a field
the current writer always records ("absent means ..."), and that upcaster fills it in; it leaves
data the current writer wrote as it is.
"""

from __future__ import annotations

import dataclasses
import enum
import types
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, NamedTuple, Self, TypeVar, Union, cast, get_args, get_origin, get_type_hints

from engine.game.events import RECORDS, VERSIONS, Event

VERSION_KEY = "v"
OMIT = "event_codec.omit"
INLINE = "event_codec.inline"

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
Omit = Callable[[Any, Any], bool]  # (the event, the field's value) -> leave the field out
_Encode = Callable[[Any], Any]
_Decode = Callable[[Any], Any]
C = TypeVar("C", bound=type)
T = TypeVar("T")


def recorded_when_set(default: Any, *, when: Omit | None = None) -> Any:
    """A field written only while it differs from ``default`` (or, given ``when(event, value)``,
    only while that holds): how a field added after the fact keeps older events' shape."""
    omit: Omit = (lambda _event, value: value == default) if when is None else (lambda e, v: not when(e, v))
    if isinstance(default, (list, dict, set)):
        return dataclasses.field(default_factory=lambda: type(default)(default), metadata={OMIT: omit})
    return dataclasses.field(default=default, metadata={OMIT: omit})


INLINED: Mapping[str, Any] = {INLINE: True}
"""A nested dataclass field's metadata (``field(metadata=INLINED)``): its own fields are written
into the event's data, not under its name."""


class UnknownEventType(KeyError):
    """A type no family registered."""


class _Field(NamedTuple):
    name: str
    encode: _Encode
    decode: _Decode
    omit: Omit | None
    inline: bool
    required: bool


class _Shape(NamedTuple):
    """A dataclass's fields, each with its encoder and decoder, built once per class."""

    cls: type
    fields: tuple[_Field, ...]


class EventCodec:
    """The registry: type name -> class (or engine record) and version, plus the upcasters."""

    def __init__(self) -> None:
        self._classes: dict[str, type] = {}
        self._versions: dict[str, int] = {}
        self._records: set[str] = set()
        self._upcasters: dict[tuple[str, int], Upcaster] = {}
        self._shapes: dict[type, _Shape] = {}
        self._values: dict[type, tuple[_Encode, _Decode]] = {}
        self._as_stored: set[str] = set()  # version 1, no version-0 upcaster: unversioned data is read as it is

    # ------------------------------------------------------------ registering

    def register(self, cls: C) -> C:
        """Register an event class (a dataclass with ``TYPE`` and ``VERSION``); used as a decorator."""
        name = str(cast(Any, cls).TYPE)
        self._claim(name, cls, int(getattr(cls, "VERSION", 1)))
        return cls

    def register_record(self, type_: str, record: type, version: int) -> None:
        """Register an engine record type: read through the codec, built by the engine as a dict."""
        self._claim(type_, record, version)
        self._records.add(type_)

    def upcaster(self, type_: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
        """Register ``fn`` to turn ``type_``'s data at ``from_version`` into ``from_version + 1``'s."""

        def add(fn: Upcaster) -> Upcaster:
            key = (str(type_), from_version)
            if key in self._upcasters:
                raise ValueError(f"{type_} already has an upcaster from version {from_version}")
            self._upcasters[key] = fn
            self._as_stored.discard(key[0])
            return fn

        return add

    def value_type(self, cls: type[T], encode: Callable[[T], Any], decode: Callable[[Any], T]) -> None:
        """Teach the codec a value's own wire form (a format/parse pair, as python-chess's Move.uci/from_uci)."""
        self._values[cls] = (encode, decode)

    def _claim(self, name: str, cls: type, version: int) -> None:
        if name in self._classes and self._classes[name] is not cls:
            raise ValueError(f"event type {name!r} is registered twice")
        if version < 1:
            raise ValueError(f"{name}: versions start at 1")
        self._classes[name] = cls
        self._versions[name] = version
        if version == 1 and (name, 0) not in self._upcasters:
            self._as_stored.add(name)
        else:
            self._as_stored.discard(name)

    # ------------------------------------------------------------ asking

    def knows(self, type_: str) -> bool:
        return type_ in self._classes

    def class_of(self, type_: str) -> type:
        try:
            return self._classes[type_]
        except KeyError:
            raise UnknownEventType(type_) from None

    def version_of(self, type_: str) -> int:
        return self._versions[type_]

    def upcasters(self) -> list[tuple[str, int]]:
        return sorted(self._upcasters)

    # ------------------------------------------------------------ writing

    def encode(self, event: Any) -> Event:
        """An event class's instance as the ``Event`` the store appends."""
        return Event(str(event.TYPE), self.encode_data(event))

    def encode_data(self, event: Any) -> dict[str, Any]:
        data = self._encode_fields(self._shape(type(event)), event)
        version = self._versions.get(str(event.TYPE), 1)
        if version > 1:
            data[VERSION_KEY] = version
        return data

    def _encode_fields(self, shape: _Shape, obj: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in shape.fields:
            value = getattr(obj, f.name)
            if f.omit is not None and f.omit(obj, value):
                continue
            if f.inline:
                out.update(f.encode(value))
            else:
                out[f.name] = f.encode(value)
        return out

    # ------------------------------------------------------------ reading

    def upcast(self, type_: str, data: Mapping[str, Any]) -> Mapping[str, Any]:
        """``data`` in ``type_``'s current shape (without its version key); ``data`` itself when
        nothing is to be done. An unknown type's data is handed back as it is."""
        if type_ in self._as_stored and VERSION_KEY not in data:
            return data  # Speed: every engine event's case, two lookups (verify of a replay: +0.2%).
        current = self._versions.get(type_)
        if current is None:
            return data
        stored = data.get(VERSION_KEY)
        if stored is None:
            version, out = 0, dict(data)
        else:
            version, out = int(stored), {k: v for k, v in data.items() if k != VERSION_KEY}
            if version > current:
                raise ValueError(f"{type_} version {version} is newer than this code's {current}")
        while version < current:
            step = self._upcasters.get((type_, version))
            if step is not None:
                out = step(out)
            elif version > 0:
                raise ValueError(f"{type_} has no upcaster from version {version}")
            version += 1
        return out

    def decode(self, type_: str, data: Mapping[str, Any]) -> Any:
        """A stored event as its class's instance (an engine record: its current-shape dict)."""
        cls = self.class_of(type_)
        current = self.upcast(type_, data)
        if type_ in self._records:
            return current if isinstance(current, dict) else dict(current)
        return self._decode_fields(self._shape(cls), current)

    def decode_as(self, cls: type[T], data: Mapping[str, Any]) -> T:
        event = self.decode(str(cast(Any, cls).TYPE), data)
        if not isinstance(event, cls):
            raise TypeError(f"{cls.__name__}'s type is registered to {type(event).__name__}")
        return event

    def _decode_fields(self, shape: _Shape, data: Mapping[str, Any]) -> Any:
        kwargs: dict[str, Any] = {}
        for f in shape.fields:
            if f.inline:
                kwargs[f.name] = f.decode(data)
            elif f.name in data:
                kwargs[f.name] = f.decode(data[f.name])
            elif f.required:
                raise KeyError(f"{shape.cls.__name__}: {f.name!r} is missing")
        return shape.cls(**kwargs)

    # ------------------------------------------------------------ deriving the shapes

    def _shape(self, cls: type) -> _Shape:
        shape = self._shapes.get(cls)
        if shape is None:
            shape = self._shapes[cls] = self._derive(cls)
        return shape

    def _derive(self, cls: type) -> _Shape:
        if not dataclasses.is_dataclass(cls):
            raise TypeError(f"{cls.__name__} is not a dataclass")
        hints = get_type_hints(cls)
        fields = []
        for f in dataclasses.fields(cls):
            hint = hints[f.name]
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            inline = bool(f.metadata.get(INLINE))
            if inline and not dataclasses.is_dataclass(hint):
                raise TypeError(f"{cls.__name__}.{f.name}: only a dataclass field can be inlined")
            encode, decode = self._converters(hint)  # a dataclass's: to and from a dict of its fields
            fields.append(_Field(f.name, encode, decode, f.metadata.get(OMIT), inline, required))
        return _Shape(cls, tuple(fields))

    def _converters(self, hint: Any) -> tuple[_Encode, _Decode]:
        """How a value of type ``hint`` is written to JSON-ready data and read back."""
        origin, args = get_origin(hint), get_args(hint)
        if hint is Any or hint in (str, int, float, bool, type(None)):
            return _same, _same
        if origin in (Union, types.UnionType):
            inner = [a for a in args if a is not type(None)]
            if len(inner) != 1:
                raise TypeError(f"the codec reads one type or None, not {hint}")
            enc, dec = self._converters(inner[0])
            return (lambda v: None if v is None else enc(v)), (lambda v: None if v is None else dec(v))
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                enc, dec = self._converters(args[0])
                return (lambda v: [enc(x) for x in v]), (lambda v: tuple(dec(x) for x in v))
            pairs = [self._converters(a) for a in args]
            return (
                lambda v: [p[0](x) for p, x in zip(pairs, v, strict=True)],
                lambda v: tuple(p[1](x) for p, x in zip(pairs, v, strict=True)),
            )
        if origin is list:
            enc, dec = self._converters(args[0])
            return (lambda v: [enc(x) for x in v]), (lambda v: [dec(x) for x in v])
        if origin in (dict, Mapping):
            kenc, kdec = self._converters(args[0])
            venc, vdec = self._converters(args[1])
            return (
                lambda v: {kenc(k): venc(x) for k, x in v.items()},
                lambda v: {kdec(k): vdec(x) for k, x in v.items()},
            )
        if isinstance(hint, type) and hint in self._values:
            return self._values[hint]
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            enum_type = hint
            return (lambda v: v.value), (lambda v: enum_type(v))
        if isinstance(hint, type) and dataclasses.is_dataclass(hint):
            nested_type = hint
            return (
                lambda v: self._encode_fields(self._shape(nested_type), v),
                lambda v: self._decode_fields(self._shape(nested_type), v),
            )
        raise TypeError(f"the codec does not know how to write {hint!r}")


def _same(value: Any) -> Any:
    return value


CODEC = EventCodec()
"""Every family's event types, in one registry."""

for _type, _record in RECORDS.items():
    CODEC.register_record(_type.value, _record, VERSIONS[_type])


def read_event(type_: str, data: Mapping[str, Any]) -> Event:
    """A stored engine event (a replay's line, a store's row), upcast to its current shape."""
    current = CODEC.upcast(type_, data)
    return Event(type_, current if isinstance(current, dict) else dict(current))


class Recorded:
    """The base of an event class: ``TYPE`` and ``VERSION`` declared by the class, its stored data
    (``payload``), its ``Event`` and its reading back all derived by :data:`CODEC`."""

    __slots__ = ()
    TYPE: ClassVar[str]
    VERSION: ClassVar[int] = 1

    def payload(self) -> dict[str, Any]:
        return CODEC.encode_data(self)

    def event(self) -> Event:
        return CODEC.encode(self)

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> Self:
        return CODEC.decode_as(cls, data)
