"""Force elements, one module each (docs/extending.md). :data:`ELEMENTS` holds their
:class:`~rtmbs.kernels.elements.base.ElementType` in the order of the registry
(:data:`rtmbs.model.registry.FORCE_ELEMENTS`), so ``ELEMENTS[code]`` is the element of a code."""
from __future__ import annotations

from importlib import import_module

from ...model.registry import FORCE_TYPES, element_module
from .base import ElementType


def _load() -> tuple[ElementType, ...]:
    out = []
    for name in FORCE_TYPES:
        el = import_module(f"{__name__}.{element_module(name)}").ELEMENT
        if el.name != name:
            raise ImportError(f"rtmbs.kernels.elements.{element_module(name)}.ELEMENT is named '{el.name}', "
                              f"registered as '{name}'")
        out.append(el)
    return tuple(out)


ELEMENTS = _load()
BY_NAME = {el.name: el for el in ELEMENTS}
