"""Calls into the component with their types read once.

wasmtime's `component.Func.__call__` reads the function's type from the
engine on every call and walks each record's fields through the C API again
for every value: about 120 µs a decision, most of it that reflection. Here a
function's parameter and result types are turned once into plain Python
lowering and lifting functions, and `list<u8>` (a `check` line, a hook event)
is lowered as one block instead of one C value a byte.

The values are those wasmtime lifts: records as `component.Record` with the
WIT's field names, enums as their case names, options as the value or None;
results, unlike wasmtime's, always as `(True, ok)` or `(False, err)`.
"""

from __future__ import annotations

import ctypes
from ctypes import byref
from typing import Any, Callable, List, Tuple

from wasmtime import _ffi as ffi
from wasmtime import component as wc
from wasmtime.component import _types as wt
from wasmtime.component._enter import enter_wasm

Lift = Callable[[Any], Any]
Lower = Callable[[Any, Any, Any], None]

_VAL_SIZE = ctypes.sizeof(ffi.wasmtime_component_val_t)
_VAL_UNION = ffi.wasmtime_component_val_t.of.offset
_U8 = ffi.WASMTIME_COMPONENT_U8.value
_BOOL = ffi.WASMTIME_COMPONENT_BOOL


def _lift_text(c: Any) -> str:
    vec = c.of.string
    text = ffi.to_str(vec)
    ffi.wasm_byte_vec_delete(byref(vec))
    return text


def _lift_enum(c: Any) -> str:
    vec = c.of.enumeration
    name = ffi.to_str(vec)
    ffi.wasm_byte_vec_delete(byref(vec))
    return name


def lifter(ty: Any) -> Lift:
    """A function from wasmtime's C value of type `ty` to its Python value (freeing the C value's parts)."""
    if isinstance(ty, wt.String):
        return _lift_text
    if isinstance(ty, wt.EnumType):
        return _lift_enum
    if isinstance(ty, wt.RecordType):
        fields = [(name, lifter(field)) for name, field in ty.fields]

        def lift_record(c: Any) -> Any:
            record = c.of.record
            try:
                value = wc.Record()
                data = record.data
                for i, (name, lift) in enumerate(fields):
                    raw = data[i].val
                    setattr(value, name, lift(raw))
                    raw.kind = _BOOL
                    raw.of.boolean = False
                return value
            finally:
                ffi.wasmtime_component_valrecord_delete(record)

        return lift_record
    if isinstance(ty, wt.ListType):
        element = ty.element
        if isinstance(element, wt.U8):
            return ty.convert_from_c
        lift_element = lifter(element)

        def lift_list(c: Any) -> List[Any]:
            items = c.of.list
            try:
                out = []
                data = items.data
                for i in range(items.size):
                    raw = data[i]
                    out.append(lift_element(raw))
                    raw.kind = _BOOL
                    raw.of.boolean = False
                return out
            finally:
                ffi.wasmtime_component_vallist_delete(byref(items))

        return lift_list
    if isinstance(ty, wt.TupleType):
        elements = [lifter(e) for e in ty.elements]

        def lift_tuple(c: Any) -> Tuple[Any, ...]:
            items = c.of.tuple
            try:
                out = []
                data = items.data
                for i, lift in enumerate(elements):
                    raw = data[i]
                    out.append(lift(raw))
                    raw.kind = _BOOL
                    raw.of.boolean = False
                return tuple(out)
            finally:
                ffi.wasmtime_component_valtuple_delete(byref(items))

        return lift_tuple
    if isinstance(ty, wt.OptionType):
        payload = lifter(ty.payload)

        def lift_option(c: Any) -> Any:
            ptr = c.of.option
            if not ptr:
                return None
            value = payload(ptr.contents)
            ptr.contents.kind = _BOOL
            ptr.contents.of.boolean = False
            ffi.wasmtime_component_val_delete(ptr)
            return value

        return lift_option
    if isinstance(ty, wt.ResultType):
        ok = lifter(ty.ok) if ty.ok is not None else None
        err = lifter(ty.err) if ty.err is not None else None

        def lift_result(c: Any) -> Tuple[bool, Any]:
            is_ok = bool(c.of.result.is_ok)
            lift = ok if is_ok else err
            ptr = c.of.result.val
            if lift is None or not ptr:
                return (is_ok, None)
            value = lift(ptr.contents)
            ptr.contents.kind = _BOOL
            ptr.contents.of.boolean = False
            ffi.wasmtime_component_val_delete(ptr)
            return (is_ok, value)

        return lift_result
    return ty.convert_from_c


def _lower_bytes(store: Any, value: Any, ptr: Any) -> None:
    """`list<u8>` lowered as one block: each byte's C value written by slicing, not one by one."""
    data = bytes(value)
    n = len(data)
    raw = ffi.wasmtime_component_vallist_t()
    ffi.wasmtime_component_vallist_new_uninit(raw, n)
    if n:
        block = bytearray(_VAL_SIZE * n)
        block[0::_VAL_SIZE] = bytes([_U8]) * n
        block[_VAL_UNION::_VAL_SIZE] = data
        ctypes.memmove(raw.data, (ctypes.c_char * len(block)).from_buffer(block), len(block))
        del block
    ptr.contents.kind = ffi.WASMTIME_COMPONENT_LIST
    ptr.contents.of.list = raw


def lowerer(ty: Any) -> Lower:
    """A function writing a Python value of type `ty` into a C value."""
    if isinstance(ty, wt.ListType) and isinstance(ty.element, wt.U8):
        return _lower_bytes
    if isinstance(ty, wt.ListType):
        return _lower_sequence(lowerer(ty.element), ffi.wasmtime_component_vallist_t, ffi.wasmtime_component_vallist_new_uninit,
                               ffi.wasmtime_component_vallist_delete, ffi.WASMTIME_COMPONENT_LIST, "list", None)
    if isinstance(ty, wt.TupleType):
        elements = [lowerer(e) for e in ty.elements]
        return _lower_sequence(None, ffi.wasmtime_component_valtuple_t, ffi.wasmtime_component_valtuple_new_uninit,
                               ffi.wasmtime_component_valtuple_delete, ffi.WASMTIME_COMPONENT_TUPLE, "tuple", elements)
    return ty.convert_to_c


def _lower_sequence(element: Any, make: Any, new_uninit: Any, delete: Any, kind: Any, field: str, elements: Any) -> Lower:
    """A list (every item by `element`) or a tuple (item i by `elements[i]`),
    its element lowerings read once; cleaned up as wasmtime cleans up when an
    item cannot be lowered."""

    def lower(store: Any, value: Any, ptr: Any) -> None:
        items = list(value)
        if elements is not None and len(items) != len(elements):
            raise TypeError(f"a tuple of {len(elements)} items, not {len(items)}")
        raw = make()
        new_uninit(raw, len(items))
        done = 0
        try:
            for i, item in enumerate(items):
                (element if elements is None else elements[i])(store, item, ctypes.pointer(raw.data[i]))
                done += 1
        except BaseException:
            for j in range(done, len(items)):
                raw.data[j].kind = _BOOL
                raw.data[j].of.boolean = False
            delete(byref(raw))
            raise
        ptr.contents.kind = kind
        setattr(ptr.contents.of, field, raw)

    return lower


class TypedFunc:
    """A component function with its types read once; called like wasmtime's `Func`."""

    def __init__(self, func: wc.Func, store: Any):
        fty = func.type(store)
        self._raw = func._func
        self._lowers = [lowerer(ty) for _, ty in fty.params]
        result = fty.result
        self._lift = lifter(result) if result is not None else None

    def __call__(self, store: Any, *args: Any) -> Any:
        n = len(args)
        if n != len(self._lowers):
            raise TypeError(f"{n} arguments for {len(self._lowers)} parameters")
        params = (ffi.wasmtime_component_val_t * max(n, 1))()
        done = 0
        try:
            for lower, value in zip(self._lowers, args):
                lower(store, value, ctypes.pointer(params[done]))
                done += 1
            result = ffi.wasmtime_component_val_t() if self._lift is not None else None
            raw = self._raw
            context = store._context()

            def run() -> Any:
                return ffi.wasmtime_component_func_call(
                    byref(raw), context, params, n, byref(result) if result is not None else None, 1 if result is not None else 0
                )

            enter_wasm(run)
            if result is None or self._lift is None:
                return None
            return self._lift(result)
        finally:
            for i in range(done):
                ffi.wasmtime_component_val_delete(byref(params[i]))
