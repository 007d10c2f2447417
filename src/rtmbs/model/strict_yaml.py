"""YAML as every reader of rtmbs takes it (model, vehicle and subsystem files, manoeuvre, UDP,
sweep and identification configs): safe, and a key given twice in one mapping is an error
naming the key and both lines — PyYAML's own loader silently keeps the last one, and the
error then surfaced far from the cause."""
from __future__ import annotations

import yaml


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping holds a key twice; ``key``, ``first_line`` and ``second_line`` (1-based)."""

    def __init__(self, key, first_line: int, second_line: int, mark):
        self.key, self.first_line, self.second_line = key, first_line, second_line
        super().__init__(None, None, f"duplicate key '{key}' at lines {first_line} and "
                         f"{second_line} (a key may appear once in a mapping: YAML would keep "
                         "only the last)", mark)

    def __str__(self):
        return self.problem


class StrictSafeLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses duplicate keys (merge keys ``<<`` may still be
    overridden, as YAML intends)."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.get(key)
                except TypeError:  # an unhashable key: the base class names it
                    continue
                line = key_node.start_mark.line + 1
                if first is not None:
                    raise DuplicateKeyError(key, first, line, key_node.start_mark)
                seen[key] = line
        return super().construct_mapping(node, deep)


def safe_load(stream):
    """``yaml.safe_load`` refusing duplicate keys (:class:`DuplicateKeyError`, a
    ``yaml.YAMLError``)."""
    return yaml.load(stream, Loader=StrictSafeLoader)  # noqa: S506 - a SafeLoader


def yaml_problem(exc: yaml.YAMLError) -> str:
    """One line for a YAML error: "duplicate key 'k' at lines 3 and 9 (...)" or
    "malformed YAML at line L, column C: problem"."""
    if isinstance(exc, DuplicateKeyError):
        return str(exc)
    mark = getattr(exc, "problem_mark", None)
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    return f"malformed YAML{where}: {getattr(exc, 'problem', None) or exc}"
