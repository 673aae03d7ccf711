"""A parser for the subset of Galaxy (StarCraft II's map script language) that the trigger editor writes."""

from __future__ import annotations

import dataclasses
import re


class GalaxyError(ValueError):
    """The script uses Galaxy this parser does not read; the message names the line."""


@dataclasses.dataclass(frozen=True)
class Name:
    id: str


@dataclasses.dataclass(frozen=True)
class Number:
    value: int | float


@dataclasses.dataclass(frozen=True)
class String:
    value: str


@dataclasses.dataclass(frozen=True)
class Call:
    function: str
    args: tuple[Expr, ...]
    line: int


@dataclasses.dataclass(frozen=True)
class Unary:
    op: str
    operand: Expr


@dataclasses.dataclass(frozen=True)
class Binary:
    op: str
    left: Expr
    right: Expr


Expr = Name | Number | String | Call | Unary | Binary


@dataclasses.dataclass(frozen=True)
class ExprStmt:
    expr: Expr
    line: int


@dataclasses.dataclass(frozen=True)
class Assign:
    target: str
    op: str  # "=", "+=", "-=" ...
    value: Expr
    line: int


@dataclasses.dataclass(frozen=True)
class VarDecl:
    type: str
    name: str
    line: int


@dataclasses.dataclass(frozen=True)
class If:
    condition: Expr
    then: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]
    line: int


@dataclasses.dataclass(frozen=True)
class For:
    init: Assign
    condition: Expr
    step: Assign
    body: tuple[Stmt, ...]
    line: int


@dataclasses.dataclass(frozen=True)
class Return:
    value: Expr | None
    line: int


Stmt = ExprStmt | Assign | VarDecl | If | For | Return


@dataclasses.dataclass(frozen=True)
class Function:
    name: str
    returns: str
    params: tuple[tuple[str, str], ...]  # (type, name)
    body: tuple[Stmt, ...]


@dataclasses.dataclass(frozen=True)
class Script:
    """The top level of one MapScript.galaxy: its includes, global variables and function definitions."""

    includes: tuple[str, ...]
    globals: dict[str, str]  # name -> type
    functions: dict[str, Function]


_TOKEN = re.compile(
    r"""(?P<space>\s+|//[^\n]*)
      | (?P<number>\d+\.\d*|\d+)
      | (?P<string>"(?:[^"\\]|\\.)*")
      | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<op><<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||\+=|-=|\*=|/=|\|=|&=|[-+*/%<>=!&|^~(){},;\[\].])""",
    re.VERBOSE,
)

# Binary operators from the loosest binding to the tightest, as in C.
_PRECEDENCE: tuple[tuple[str, ...], ...] = (
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<", "<=", ">", ">="),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
)
_ASSIGN_OPS = {"=", "+=", "-=", "*=", "/=", "|=", "&=", "<<=", ">>="}


@dataclasses.dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    line: int


def _tokenize(source: str) -> list[_Token]:
    tokens, position, line = [], 0, 1
    while position < len(source):
        match = _TOKEN.match(source, position)
        if match is None:
            raise GalaxyError(f"line {line}: unexpected character {source[position]!r}")
        kind = match.lastgroup or ""
        if kind != "space":
            tokens.append(_Token(kind, match.group(), line))
        line += match.group().count("\n")
        position = match.end()
    tokens.append(_Token("end", "", line))
    return tokens


class _Parser:
    def __init__(self, source: str) -> None:
        self.tokens = _tokenize(source)
        self.at = 0

    def peek(self, offset: int = 0) -> _Token:
        return self.tokens[min(self.at + offset, len(self.tokens) - 1)]

    def take(self, text: str | None = None, kind: str | None = None) -> _Token:
        token = self.peek()
        if (text is not None and token.text != text) or (kind is not None and token.kind != kind):
            wanted = repr(text) if text is not None else kind
            raise GalaxyError(f"line {token.line}: expected {wanted}, found {token.text!r}")
        self.at += 1
        return token

    def script(self) -> Script:
        includes: list[str] = []
        globals_: dict[str, str] = {}
        functions: dict[str, Function] = {}
        while self.peek().kind != "end":
            if self.peek().text == "include":
                self.take("include")
                includes.append(self.take(kind="string").text[1:-1])
                continue
            type_, name = self.take(kind="name").text, self.take(kind="name").text
            if self.peek().text == ";":  # a global variable
                self.take(";")
                globals_[name] = type_
                continue
            params = self.params()
            if self.peek().text == ";":  # a forward declaration
                self.take(";")
                continue
            functions[name] = Function(name, type_, params, self.block())
        return Script(tuple(includes), globals_, functions)

    def params(self) -> tuple[tuple[str, str], ...]:
        self.take("(")
        params = []
        while self.peek().text != ")":
            params.append((self.take(kind="name").text, self.take(kind="name").text))
            if self.peek().text == ",":
                self.take(",")
        self.take(")")
        return tuple(params)

    def block(self) -> tuple[Stmt, ...]:
        self.take("{")
        statements = []
        while self.peek().text != "}":
            statements.append(self.statement())
        self.take("}")
        return tuple(statements)

    def statement(self) -> Stmt:
        token = self.peek()
        if token.text == "if":
            self.take("if")
            self.take("(")
            condition = self.expression()
            self.take(")")
            then = self.block()
            orelse: tuple[Stmt, ...] = ()
            if self.peek().text == "else":
                self.take("else")
                orelse = (self.statement(),) if self.peek().text == "if" else self.block()
            return If(condition, then, orelse, token.line)
        if token.text == "for":
            self.take("for")
            self.take("(")
            init = self.assignment()
            self.take(";")
            condition = self.expression()
            self.take(";")
            step = self.assignment()
            self.take(")")
            return For(init, condition, step, self.block(), token.line)
        if token.text == "return":
            self.take("return")
            value = None if self.peek().text == ";" else self.expression()
            self.take(";")
            return Return(value, token.line)
        if token.kind == "name" and self.peek(1).kind == "name":  # `unitgroup lv_enemies;`
            type_, name = self.take().text, self.take().text
            self.take(";")
            return VarDecl(type_, name, token.line)
        if token.kind == "name" and self.peek(1).text in _ASSIGN_OPS:
            statement = self.assignment()
            self.take(";")
            return statement
        expr = self.expression()
        self.take(";")
        return ExprStmt(expr, token.line)

    def assignment(self) -> Assign:
        target = self.take(kind="name")
        op = self.take().text
        if op not in _ASSIGN_OPS:
            raise GalaxyError(f"line {target.line}: expected an assignment to {target.text}, found {op!r}")
        return Assign(target.text, op, self.expression(), target.line)

    def expression(self, level: int = 0) -> Expr:
        if level == len(_PRECEDENCE):
            return self.unary()
        left = self.expression(level + 1)
        while self.peek().text in _PRECEDENCE[level]:
            op = self.take().text
            left = Binary(op, left, self.expression(level + 1))
        return left

    def unary(self) -> Expr:
        if self.peek().text in ("!", "-", "~"):
            op = self.take().text
            return Unary(op, self.unary())
        return self.primary()

    def primary(self) -> Expr:
        token = self.take()
        if token.text == "(":
            inner = self.expression()
            self.take(")")
            return inner
        if token.kind == "number":
            return Number(float(token.text) if "." in token.text else int(token.text))
        if token.kind == "string":
            return String(token.text[1:-1])
        if token.kind == "name":
            if self.peek().text != "(":
                return Name(token.text)
            self.take("(")
            args = []
            while self.peek().text != ")":
                args.append(self.expression())
                if self.peek().text == ",":
                    self.take(",")
            self.take(")")
            return Call(token.text, tuple(args), token.line)
        raise GalaxyError(f"line {token.line}: unexpected {token.text!r} in an expression")


def parse(source: str) -> Script:
    """The script's includes, globals and functions; raises GalaxyError on anything outside the subset."""
    return _Parser(source).script()
