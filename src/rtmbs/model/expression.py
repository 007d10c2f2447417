"""Expression inputs: ``expr: "0.05*sin(2*pi*1.5*t)"`` parsed safely into a stack program.

The text is parsed with Python's own grammar (:mod:`ast`) and only a whitelist is accepted: numbers,
the time ``t``, the constants ``pi`` and ``e``, ``+ - * / **``, unary ``-``/``+`` and the functions
of :data:`FUNCTIONS`. Anything else (names, attributes, calls of other functions, comparisons,
subscripts, keyword arguments) is refused with a :class:`ExpressionError` naming the construct.
No Python code is ever evaluated.

The program is a postfix (RPN) sequence of opcodes with one operand each (the constant of
``PUSH``, the exponent of ``POW_CONST``); the C engine's ``rtmbs_expr_eval`` (``engine/functions.c``)
runs it, carrying value, first and second time derivative through every operation (Taylor
arithmetic), so Φt and γ of a driven joint are exact.
"""
from __future__ import annotations

import ast
import math

import numpy as np

# opcodes (the engine's functions.c uses the same numbers; tests/core/test_expressions.py runs
# every one through it against Python)
PUSH, TIME, ADD, SUB, MUL, DIV, NEG, POW_CONST = range(8)
SIN, COS, TAN, EXP, LOG, SQRT, TANH, ATAN, ABS = range(8, 17)

#: functions of one argument an expression may call
FUNCTIONS = {"sin": SIN, "cos": COS, "tan": TAN, "exp": EXP, "log": LOG, "sqrt": SQRT,
             "tanh": TANH, "atan": ATAN, "abs": ABS}
CONSTANTS = {"pi": math.pi, "e": math.e}
#: deepest stack a program may need (the compiled evaluator's fixed stack)
MAX_DEPTH = 32
MAX_LENGTH = 512

_BINARY = {ast.Add: ADD, ast.Sub: SUB, ast.Mult: MUL, ast.Div: DIV}


class ExpressionError(ValueError):
    """An expression that is not a function of ``t`` built from the allowed parts."""


def compile_expression(text: str) -> tuple[np.ndarray, np.ndarray]:
    """(opcodes, operands) of ``text`` as float arrays (stored as a table of the model).

    >>> ops, args = compile_expression("2*t")
    >>> ops.tolist(), args.tolist()
    ([0.0, 1.0, 4.0], [2.0, 0.0, 0.0])
    """
    if not isinstance(text, str) or not text.strip():
        raise ExpressionError("expression is empty")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"expression {text!r} is not valid syntax "
                              f"(column {exc.offset}: {exc.msg})") from None
    program: list[tuple[int, float]] = []
    _emit(tree.body, program, text)
    if len(program) > MAX_LENGTH:
        raise ExpressionError(f"expression {text!r} is too long ({len(program)} operations, "
                              f"at most {MAX_LENGTH})")
    depth = _depth(program)
    if depth > MAX_DEPTH:
        raise ExpressionError(f"expression {text!r} nests too deeply (stack depth {depth}, "
                              f"at most {MAX_DEPTH})")
    ops = np.array([op for op, _ in program], float)
    args = np.array([arg for _, arg in program], float)
    return ops, args


def _constant(node) -> float | None:
    """The value of a node that does not depend on t, or None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.Name) and node.id in CONSTANTS:
        return CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _constant(node.operand)
        return None if v is None else (-v if isinstance(node.op, ast.USub) else v)
    return None


def _emit(node, program, text) -> None:
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ExpressionError(f"expression {text!r}: {node.value!r} is not a number")
        if not math.isfinite(node.value):
            raise ExpressionError(f"expression {text!r}: {node.value!r} is not finite")
        program.append((PUSH, float(node.value)))
    elif isinstance(node, ast.Name):
        if node.id == "t":
            program.append((TIME, 0.0))
        elif node.id in CONSTANTS:
            program.append((PUSH, CONSTANTS[node.id]))
        else:
            raise ExpressionError(f"expression {text!r}: unknown name {node.id!r} (allowed: t, "
                                  f"{', '.join(CONSTANTS)}, and the functions "
                                  f"{', '.join(FUNCTIONS)})")
    elif isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        _emit(node.left, program, text)
        _emit(node.right, program, text)
        program.append((_BINARY[type(node.op)], 0.0))
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        exponent = _constant(node.right)
        _emit(node.left, program, text)
        if exponent is not None:  # u**c
            program.append((POW_CONST, exponent))
        else:  # u**v = exp(v·log u)
            program.append((LOG, 0.0))
            _emit(node.right, program, text)
            program.append((MUL, 0.0))
            program.append((EXP, 0.0))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        _emit(node.operand, program, text)
        program.append((NEG, 0.0))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.UAdd):
        _emit(node.operand, program, text)
    elif isinstance(node, ast.Call):
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name not in FUNCTIONS:
            shown = name if name else ast.unparse(node.func)
            raise ExpressionError(f"expression {text!r}: unknown function {shown!r} (allowed: "
                                  f"{', '.join(FUNCTIONS)})")
        if len(node.args) != 1 or node.keywords:
            raise ExpressionError(f"expression {text!r}: {name}() takes exactly one argument")
        _emit(node.args[0], program, text)
        program.append((FUNCTIONS[name], 0.0))
    else:
        raise ExpressionError(f"expression {text!r}: {ast.unparse(node)!r} is not allowed (only "
                              "numbers, t, pi, e, + - * / **, and the functions "
                              f"{', '.join(FUNCTIONS)})")


def _depth(program) -> int:
    depth = deepest = 0
    for op, _ in program:
        if op in (PUSH, TIME):
            depth += 1
        elif op in (ADD, SUB, MUL, DIV):
            depth -= 1
        deepest = max(deepest, depth)
    return deepest
