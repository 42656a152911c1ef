"""A small C preprocessor for OpenCL C, enough to know a unit's kernels before compiling.

It strips comments, joins continued lines, evaluates ``#if``/``#ifdef`` blocks and expands
object-like and function-like macros (with ``#`` and ``##``). ``#include`` is skipped: kernels
named only inside included headers are not seen (the compiler still finds them).
``included_files`` lists the files the ``#include`` lines of a unit may read (the build cache's
key covers them).
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<id>[A-Za-z_]\w*)
      | (?P<num>\.?\d(?:[\w.]|[eEpP][+-])*)
      | (?P<str>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')
      | (?P<op>\#\#|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!~<>=?:;,.()\[\]{}\#])
    )""",
    re.VERBOSE,
)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.DOTALL)
# A backslash ending a line (clang allows spaces after it, and CRLF line ends) joins the next.
_SPLICE = re.compile(r"\\[ \t]*\r?\n")
_INT_SUFFIX = re.compile(r"^(0[xX][0-9a-fA-F]+|\d+)[uUlL]*$")


def tokenize(text: str) -> list[str]:
    """Split C text into tokens (identifiers, numbers, literals, punctuators)."""
    return [m.group().strip() for m in _TOKEN.finditer(text) if m.group().strip()]


def strip_comments(source: str) -> str:
    """Remove comments (keeping string literals) and join backslash-continued lines: joined
    first, as C does (C11 5.1.1.2), so a ``//`` comment ending in a backslash goes on."""

    def keep_literals(m: re.Match[str]) -> str:
        text = m.group()
        if text.startswith("/*"):
            return " " + "\n" * text.count("\n")
        return " " if text.startswith("//") else text

    return _COMMENT.sub(keep_literals, _SPLICE.sub("", source))


@dataclass(frozen=True)
class Macro:
    """One ``#define``: ``params`` is None for an object-like macro."""

    params: tuple[str, ...] | None
    body: tuple[str, ...]


def definitions_from_options(options: tuple[str, ...]) -> dict[str, Macro]:
    """The macros that ``-D name[=value]`` build options define."""
    macros: dict[str, Macro] = {}
    words = list(options)
    for i, word in enumerate(words):
        text = word[2:] if word.startswith("-D") else None
        if word == "-D" and i + 1 < len(words):
            text = words[i + 1]
        if text:
            name, _, value = text.partition("=")
            macros[name.strip()] = Macro(None, tuple(tokenize(value or "1")))
    return macros


class Preprocessor:
    """Expands one translation unit; ``run`` returns its tokens after preprocessing."""

    def __init__(self, macros: dict[str, Macro]) -> None:
        self.macros = dict(macros)

    def run(self, source: str) -> list[str]:
        out: list[str] = []
        active: list[bool] = []  # one entry per open #if: is this branch taken
        taken: list[bool] = []  # has any branch of this #if been taken
        pending: list[str] = []
        for line in strip_comments(source).splitlines():
            stripped = line.strip()
            if stripped.startswith("#"):
                out.extend(self.expand(pending))
                pending = []
                self._directive(stripped[1:].strip(), active, taken)
            elif all(active):
                pending.extend(tokenize(line))
        out.extend(self.expand(pending))
        return out

    def _directive(self, text: str, active: list[bool], taken: list[bool]) -> None:
        word, _, rest = text.partition(" ")
        word = word.strip()
        rest = rest.strip()
        if word in ("if", "ifdef", "ifndef"):
            live = all(active)
            cond = live and self._condition(word, rest)
            active.append(cond)
            taken.append(cond or not live)
        elif word in ("elif", "else") and active:
            live = all(active[:-1])
            cond = live and not taken[-1] and (word == "else" or self._condition("if", rest))
            active[-1] = cond
            taken[-1] = taken[-1] or cond
        elif word == "endif" and active:
            active.pop()
            taken.pop()
        elif all(active) and word == "define":
            self._define(rest)
        elif all(active) and word == "undef":
            self.macros.pop(rest.split()[0] if rest else "", None)

    def _define(self, rest: str) -> None:
        m = re.match(r"([A-Za-z_]\w*)(\(([^)]*)\))?", rest)
        if not m:
            return
        body = tuple(tokenize(rest[m.end():]))
        if m.group(2) is None:
            self.macros[m.group(1)] = Macro(None, body)
        else:
            params = tuple(p.strip() for p in m.group(3).split(",") if p.strip())
            self.macros[m.group(1)] = Macro(params, body)

    def _condition(self, kind: str, text: str) -> bool:
        if kind == "ifdef":
            return text.split()[0] in self.macros if text else False
        if kind == "ifndef":
            return text.split()[0] not in self.macros if text else True
        return evaluate(self.expand(self._replace_defined(tokenize(text))))

    def _replace_defined(self, tokens: list[str]) -> list[str]:
        out: list[str] = []
        i = 0
        while i < len(tokens):
            if tokens[i] == "defined":
                if i + 1 < len(tokens) and tokens[i + 1] == "(":
                    name, i = tokens[i + 2] if i + 2 < len(tokens) else "", i + 4
                else:
                    name, i = tokens[i + 1] if i + 1 < len(tokens) else "", i + 2
                out.append("1" if name in self.macros else "0")
            else:
                out.append(tokens[i])
                i += 1
        return out

    def expand(self, tokens: list[str], hidden: frozenset[str] = frozenset()) -> list[str]:
        """Macro-expand a token list (``hidden`` names are being expanded already)."""
        out: list[str] = []
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            macro = self.macros.get(tok) if tok not in hidden else None
            if macro is None:
                out.append(tok)
                i += 1
                continue
            if macro.params is None:
                out.extend(self.expand(_paste(list(macro.body)), hidden | {tok}))
                i += 1
                continue
            if i + 1 >= len(tokens) or tokens[i + 1] != "(":
                out.append(tok)
                i += 1
                continue
            args, i = _call_arguments(tokens, i + 1)
            body = self._substitute(macro, args)
            out.extend(self.expand(body, hidden | {tok}))
        return out

    def _substitute(self, macro: Macro, args: list[list[str]]) -> list[str]:
        params = macro.params or ()
        values = dict(zip(params, args, strict=False))
        body: list[str] = []
        j = 0
        while j < len(macro.body):
            tok = macro.body[j]
            if tok == "#" and j + 1 < len(macro.body) and macro.body[j + 1] in values:
                body.append('"' + " ".join(values[macro.body[j + 1]]) + '"')
                j += 2
                continue
            before = macro.body[j - 1] if j else ""
            after = macro.body[j + 1] if j + 1 < len(macro.body) else ""
            pasting = "##" in (before, after)
            if tok in values:
                body.extend(values[tok] if pasting else self.expand(values[tok]))
            else:
                body.append(tok)
            j += 1
        return _paste(body)


def _call_arguments(tokens: list[str], open_index: int) -> tuple[list[list[str]], int]:
    """The comma-separated arguments of a macro call starting at ``(``; returns (args, next)."""
    args: list[list[str]] = [[]]
    depth = 0
    i = open_index
    while i < len(tokens):
        tok = tokens[i]
        if tok == "(":
            depth += 1
            if depth > 1:
                args[-1].append(tok)
        elif tok == ")":
            depth -= 1
            if depth == 0:
                return ([] if args == [[]] else args), i + 1
            args[-1].append(tok)
        elif tok == "," and depth == 1:
            args.append([])
        else:
            args[-1].append(tok)
        i += 1
    return args, i


def _paste(tokens: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if tokens[i] == "##" and out and i + 1 < len(tokens):
            out[-1] = out[-1] + tokens[i + 1]
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return out


def _c_int(text: str) -> int:
    """A C integer literal's value (hex, octal or decimal)."""
    if text[:2] in ("0x", "0X"):
        return int(text, 16)
    return int(text, 8) if len(text) > 1 and text[0] == "0" else int(text)


_PY_OPS = {"&&": " and ", "||": " or ", "!": " not ", "/": "//"}


def evaluate(tokens: list[str]) -> bool:
    """Evaluate a preprocessed ``#if`` expression; unknown identifiers are 0 (as in C)."""
    parts = []
    for tok in tokens:
        m = _INT_SUFFIX.match(tok)
        if m:
            parts.append(str(_c_int(m.group(1))))
        elif tok[0].isalpha() or tok[0] == "_":
            parts.append("0")
        else:
            parts.append(_PY_OPS.get(tok, tok))
    try:
        return bool(eval(" ".join(parts), {"__builtins__": {}}))
    except Exception:  # an expression this evaluator does not understand: branch not taken
        return False


def integer_value(tokens: list[str]) -> int | None:
    """The value of a constant integer expression (after expansion), or None."""
    text = " ".join(str(_c_int(m.group(1))) if (m := _INT_SUFFIX.match(t)) else t for t in tokens)
    if not re.fullmatch(r"[\d\s()+\-*/%<>|&^~]*", text):
        return None
    try:
        return int(eval(text.replace("/", "//"), {"__builtins__": {}}))
    except Exception:  # not a plain constant expression
        return None


_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include\b[ \t]*(?:"([^"\n]+)"|<([^>\n]+)>|(.*))', re.MULTILINE)


def include_dirs(options: Sequence[str]) -> list[str]:
    """The ``-I`` directories of build options, in order (``-Idir`` and ``-I dir``; an option
    string may hold several words, as the driver splits them)."""
    words: list[str] = []
    for option in options:
        try:
            words += shlex.split(option)
        except ValueError:  # an unbalanced quote: the driver splits on blanks
            words += option.split()
    dirs = []
    for i, word in enumerate(words):
        if word == "-I" and i + 1 < len(words):
            dirs.append(words[i + 1])
        elif word.startswith("-I") and len(word) > 2:
            dirs.append(word[2:])
    return dirs


def included_files(source: str, search: Sequence[str]) -> dict[str, str | None] | None:
    """Every file the ``#include`` lines of ``source`` and of the files they include may read.

    Each include is looked for in the directory of the including file (the working directory
    for ``source``, as the drivers compile it), then in every ``search`` directory; every
    candidate counts, the one a driver picks and those it might pick before it (quoted and
    angle includes search differently from one driver to another). Lines inside ``#if``
    blocks count too: over-covering only costs a rebuild when such a file changes.

    Returns:
        The absolute path of each candidate -> the SHA-256 of its content, or None where no
        file is (one created there later changes the result); None when an include names
        its file through a macro, which this reader cannot follow (or the working directory
        is gone).
    """
    try:
        cwd = os.getcwd()
    except OSError:  # the working directory was deleted: where the driver looks is unknown
        return None
    found: dict[str, str | None] = {}
    pending = [(source, cwd)]
    while pending:
        text, here = pending.pop()
        for match in _INCLUDE.finditer(strip_comments(text)):
            name = match.group(1) or match.group(2)
            if name is None:
                return None
            for base in dict.fromkeys((here, *search)):
                path = os.path.realpath(os.path.join(base, name))
                if path in found:
                    continue
                try:
                    with open(path, "rb") as header:
                        content = header.read()
                except OSError:  # absent, a folder, unreadable: the compiler cannot read it either
                    found[path] = None
                    continue
                found[path] = hashlib.sha256(content).hexdigest()
                pending.append((content.decode(errors="replace"), os.path.dirname(path)))
    return found
