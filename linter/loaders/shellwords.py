"""Command lines as a shell reads them (issue 35 §2): the one splitter of every input that holds commands.

Shell scripts and LocalStack ready hooks (``shell.py``: the queues ``aws sqs create-queue`` makes), Makefile
recipes (:func:`makefile`), and the worker start commands of Procfiles, Supervisor, systemd, compose, ECS and
Kubernetes (``commandline.py``) are all cut into simple commands here, the same way:

- :func:`script` reads a script's text the way POSIX sh tokenises it: comments, ``\\``-newline continuations,
  single and double quotes, escapes, here-documents (their bodies are data, not commands), and the operators
  that end a command (newline, ``;``, ``&&``, ``||``, ``|``, ``&``, ``(``, ``)``). Words are split and unquoted
  by :mod:`shlex` (POSIX mode), after the expansions below;
- expansions: ``$VAR``/``${VAR}`` of a variable the script assigned before (``VAR=x``, ``export VAR=x``;
  a known value outside quotes is split into words, as the shell does), ``${VAR:-default}`` / ``${VAR-default}``
  / ``${VAR:=default}`` (the default when the script does not assign VAR), and everything else (a variable of
  the environment, ``$(...)``, backquotes, ``$((...))``, ``$1``, ``${VAR#x}``) as an **unknown part**: a
  :class:`Part` kept in the word (``Word.known`` is False, ``Word.display`` shows it as written). The commands
  inside a ``$(...)`` are read too (they run): ``Part.commands``;
- shell functions (``name() { ...; }``, ``function name { ...; }``): each call by name expands the body with the
  call's words as ``$1``.., ``${1:-default}``, ``"$@"``, ``$*``, ``$#``, its commands located at the call's line;
  a function never called by name is read once at the end, its ``$1`` unknown (:data:`MAX_CALLS`,
  :data:`MAX_CALL_DEPTH`, :data:`MAX_FUNCTIONS`);
- ``for NAME in WORDS; do ...; done``: the body once per word (:data:`MAX_LOOP_WORDS`) with ``$NAME`` that word,
  when the words are known; else once, as written, ``$NAME`` unknown;
- a command is a :class:`Command`: its words, the line it starts on, its prefix assignments (``A=b cmd``);
  :func:`simple` takes off what only runs it (``exec``, ``env A=b``, ``nohup``, ``time``, ``command``, ``sudo``,
  reserved words such as ``then``/``do``/``!``) and opens ``sh -c '...'`` / ``bash -lc "..."`` into the commands
  of its string.

Bounded: at most :data:`MAX_TEXT` characters of text, :data:`MAX_DEPTH` nested ``$(``/``${``/``sh -c``,
:data:`MAX_COMMANDS` commands and :data:`MAX_EXPANDED` characters of expansions per call; past a bound, or on a
quote left open, :class:`ShellError` (a message and a line): the caller makes it one note.
"""

from __future__ import annotations

import posixpath
import re
import shlex

MAX_TEXT = 4_000_000  # characters of one input's text
MAX_DEPTH = 16  # nested $( ${ ` and sh -c strings
MAX_COMMANDS = 20_000  # commands of one input
MAX_EXPANDED = 1_000_000  # characters all expansions of one input may produce (make's recursive variables)
MAX_EXPORTED = 256  # names one input may export (``export A``; a Makefile's ``export A := b``)
_MARK = "\x00"  # brackets an unknown part's index in a word's text (NUL never survives in the input)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\+?=(.*)", re.S)
_PARTS = re.compile("\x00(\\d+)\x00")
_QUOTING = re.compile(r"[\\'\"]")
_PLAIN = re.compile(r"[^\\$`'\"#<\n;&|() \t\r]+")
_REDIRECT = re.compile(r"\d*(?:>>?|<|&>>?|>&|<&)(.*)", re.S)
_RESERVED = frozenset(
    {"then", "do", "else", "elif", "if", "while", "until", "!", "{", "}", "time", "fi", "done"}
)
_RUNNERS = frozenset({"exec", "nohup", "command", "builtin", "time", "nice", "ionice", "chronic"})
_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ash", "ksh"})


class ShellError(ValueError):
    """Text the splitter cannot read (a quote left open, a bound passed): ``message`` and its 1-based ``line``."""

    def __init__(self, message: str, line: int):
        super().__init__(f"{message} (line {line})")
        self.message, self.line = message, line


class Part:
    """An unknown part of a word: ``display`` as written (``$QUEUE``, ``$(aws sqs ...)``), and for a command
    substitution the commands it runs (``commands``)."""

    __slots__ = ("display", "commands", "name")

    def __init__(self, display: str, commands: list | None = None, name: str | None = None):
        self.display, self.commands, self.name = display, commands or [], name

    def __repr__(self) -> str:
        return f"Part({self.display!r})"


class Word:
    """One word of a command after expansion and quote removal: ``text`` holds unknown parts as marks (use
    :attr:`display` to show it, :attr:`known` to know whether it is all known)."""

    __slots__ = ("text", "parts")

    def __init__(self, text: str, parts: list[Part]):
        self.text, self.parts = text, parts

    @property
    def known(self) -> bool:
        return _MARK not in self.text

    @property
    def display(self) -> str:
        return _PARTS.sub(lambda m: self.parts[int(m.group(1))].display, self.text)

    def unknowns(self) -> list[Part]:
        return [self.parts[int(m.group(1))] for m in _PARTS.finditer(self.text)]

    def __str__(self) -> str:
        return self.display

    def __repr__(self) -> str:
        return f"Word({self.display!r})"


class Command:
    """A simple command: ``words``, the 1-based ``line`` it starts on, ``env`` its prefix assignments (NAME ->
    Word), ``exported``: the variables the script exported before it (``export A=b``; a Makefile's ``export A :=
    b``), NAME -> Word: with ``env``, the environment the command's process gets from its input (:meth:`environ`)."""

    __slots__ = ("words", "line", "env", "exported")

    def __init__(self, words: list[Word], line: int, env: dict | None = None, exported: dict | None = None):
        self.words, self.line, self.env = words, line, env or {}
        self.exported = exported or {}

    def environ(self) -> dict:
        """NAME -> Word: what the input gives the command's environment (its exported variables, then its prefix
        assignments, which win)."""
        return {**self.exported, **self.env}

    @property
    def argv(self) -> list[str]:
        """The words as shown (unknown parts as written)."""
        return [w.display for w in self.words]

    def __repr__(self) -> str:
        return f"Command({self.argv!r}, line={self.line})"


class _Budget:
    __slots__ = ("commands", "expanded", "parts", "functions", "called", "calls", "exported")

    def __init__(self):
        self.commands = 0
        self.expanded = 0
        self.parts: list[Part] = []  # every unknown part of one call (marks index it)
        # the shell functions defined so far: name -> (body text, its first line, the variables at the definition)
        self.functions: dict[str, tuple[str, int, dict]] = {}
        self.called: set[str] = set()  # functions expanded at a call (the others are read once, $1 unknown)
        self.calls = 0  # calls expanded in all (MAX_CALLS)
        self.exported: set[str] = set()  # the names `export` marked (their values are the reader's env)

    def part(self, part: Part) -> str:
        self.parts.append(part)
        return f"{_MARK}{len(self.parts) - 1}{_MARK}"

    def grow(self, n: int, line: int) -> None:
        self.expanded += n
        if self.expanded > MAX_EXPANDED:
            raise ShellError(f"expansions produce more than {MAX_EXPANDED:,} characters", line)


# ------------------------------------------------------------------------------------------------- scripts
def script(text: str, variables: dict | None = None, *, line: int = 1) -> list[Command]:
    """The commands of a script's ``text`` (those inside ``$(...)`` first, as they run), in order; ``variables``
    (NAME -> str) are known at its start and updated by its assignments. Raises :class:`ShellError`."""
    if len(text) > MAX_TEXT:
        raise ShellError(f"more than {MAX_TEXT:,} characters", line)
    budget = _Budget()
    env = dict(variables or {})
    out: list[Command] = []
    _Reader(text.replace("\x00", ""), env, budget, out, line, 0).run()
    for name, (body, at, defined_env) in list(budget.functions.items()):
        if name not in budget.called:  # never called by its name here (``"$@"`` dispatch): its commands once
            _Reader(body, dict(defined_env), budget, out, at, 1).run()
    return out


class _Reader:
    """One pass over a script's text: chunks between operators, expanded into shlex's input."""

    def __init__(self, text: str, env: dict, budget: _Budget, out: list, line: int, depth: int):
        if depth > MAX_DEPTH:
            raise ShellError(f"more than {MAX_DEPTH} nested substitutions or sh -c strings", line)
        self.s, self.env, self.b, self.out, self.line, self.depth = text, env, budget, out, line, depth
        self.i = 0
        self.heredocs: list[tuple[str, bool]] = []
        self.args: list[str] | None = None  # a called function's positional parameters ($1 ...): None outside
        self.call_line: int | None = (
            None  # the line of the outermost call being expanded (its commands' line)
        )
        self.calls_deep = 0  # calls being expanded around this text (MAX_CALL_DEPTH)

    def child(self, text: str, env: dict, line: int) -> _Reader:
        """A reader of ``text`` inside this one (a substitution, a default), with this one's call context."""
        sub = _Reader(text, env, self.b, [], line, self.depth + 1)
        sub.args, sub.call_line, sub.calls_deep = self.args, self.call_line, self.calls_deep
        return sub

    # -- the chunk being built: expanded text for shlex, its start line
    def run(self) -> None:
        s, n = self.s, len(self.s)
        buf: list[str] = []
        start: int | None = None
        quote = None
        while self.i < n:
            c = s[self.i]
            if quote == "'":
                if c == "'":
                    quote = None
                elif c == "\n":
                    self.line += 1
                buf.append(c)
                self.i += 1
                continue
            if c == "\\":
                nxt = s[self.i + 1 : self.i + 2]
                if nxt == "\n":  # a continuation: the line goes on
                    self.line += 1
                    self.i += 2
                    continue
                if quote == '"' and nxt in ("$", "`"):
                    buf.append(nxt)
                else:
                    buf.append(s[self.i : self.i + 2])
                self.i += 2
                continue
            if c == "$" or c == "`":
                if start is None:
                    start = self.line
                buf.append(self.dollar(quote == '"'))
                continue
            if quote == '"':
                if c == '"':
                    quote = None
                elif c == "\n":
                    self.line += 1
                buf.append(c)
                self.i += 1
                continue
            # outside quotes
            if c in "'\"":
                quote = c
                if start is None:
                    start = self.line
                buf.append(c)
                self.i += 1
                continue
            if c == "#" and (not buf or buf[-1][-1:] in (" ", "\t", "")):
                j = s.find("\n", self.i)
                self.i = n if j < 0 else j
                continue
            if c == "<" and s.startswith("<<", self.i) and not s.startswith("<<<", self.i):
                self.heredoc_start()
                if start is None:
                    start = self.line
                continue
            if c == "&" and (s[self.i - 1 : self.i] in (">", "<") or s[self.i + 1 : self.i + 2] == ">"):
                buf.append(c)  # 2>&1, &> file: a redirection, not an operator
                self.i += 1
                continue
            if c in "\n;&|()":
                self.emit(buf, start)
                buf, start = [], None
                if c == "\n":
                    self.line += 1
                    self.i += 1
                    if self.heredocs:
                        self.skip_heredocs()
                    continue
                self.i += 1
                continue
            if c in " \t\r":
                buf.append(c)
                self.i += 1
                continue
            if start is None and (c.isalpha() or c == "_") and self.definition():
                continue
            if start is None and c == "f" and self.loop():
                continue
            if start is None:
                start = self.line
            m = _PLAIN.match(s, self.i)
            if m and m.end() > self.i:  # a run of ordinary characters at once (a 1 MB line stays fast)
                buf.append(m.group(0))
                self.i = m.end()
            else:
                buf.append(c)
                self.i += 1
        if quote is not None:
            raise ShellError(f"a {'single' if quote == chr(39) else 'double'} quote is not closed", self.line)
        self.emit(buf, start)

    def definition(self) -> bool:
        """A function definition at ``self.i`` (``name() { ...; }``, ``function name { ...; }``): its body kept
        for its calls (:meth:`call`), the text after it read on. False (nothing read) for anything else, and for a
        body whose end the scan does not find (the commands are then read as written)."""
        m = _FUNCTION.match(self.s, self.i)
        if m is None:
            return False
        end = _body_end(self.s, m.end())
        if end is None:
            return False
        name = m.group(1) or m.group(2)
        body_line = self.line + self.s.count("\n", self.i, m.end())
        if len(self.b.functions) < MAX_FUNCTIONS or name in self.b.functions:
            self.b.functions[name] = (self.s[m.end() : end], body_line, dict(self.env))
        self.line += self.s.count("\n", self.i, end + 1)
        self.i = end + 1
        return True

    def loop(self) -> bool:
        """A ``for NAME in WORDS; do BODY; done`` at ``self.i``: its body read once per word with ``$NAME`` that
        word (``for q in orders audit``, ``QUEUES="a b"; for q in $QUEUES``), its commands at their own lines.
        False (nothing read) when the loop's words are not all known, there are more than :data:`MAX_LOOP_WORDS`,
        or its ``done`` is not found: its commands are then read once, as written, ``$NAME`` unknown."""
        m = _FOR.match(self.s, self.i)
        if m is None:
            return False
        end = _loop_end(self.s, m.end())
        if end is None:
            return False
        body_at, done_at = end
        head = self.child(": " + self.s[m.start(2) : m.end(2)], dict(self.env), self.line)  # `:` runs nothing
        head.run()
        words = [w for cmd in head.out for w in cmd.words[1:]]
        if not words or len(words) > MAX_LOOP_WORDS or not all(w.known for w in words):
            self.env.pop(m.group(1), None)  # its value in the body is not known (not an earlier loop's)
            return False
        if self.b.calls + len(words) > MAX_CALLS or self.depth + 1 > MAX_DEPTH:
            return False
        body = self.s[body_at:done_at]
        body_line = self.line + self.s.count("\n", self.i, body_at)
        for w in words:
            self.b.calls += 1
            env = self.env  # the body's assignments stay set after the loop, as the shell's do
            env[m.group(1)] = w.text
            sub = _Reader(body, env, self.b, self.out, body_line, self.depth + 1)
            sub.args, sub.call_line, sub.calls_deep = self.args, self.call_line, self.calls_deep
            sub.run()
        self.line += self.s.count("\n", self.i, done_at + 4)
        self.i = done_at + 4
        return True

    def call(self, words: list[Word], start: int | None) -> bool:
        """The commands of a call of a function the script defined, its ``$1``... the call's words, located at the
        call's line (where the values are written). Bounded: MAX_CALL_DEPTH calls inside calls, MAX_CALLS in all,
        MAX_DEPTH readers deep; past a bound the call is a plain command (False)."""
        fn = self.b.functions.get(words[0].text) if words[0].known else None
        if (
            fn is None
            or self.calls_deep >= MAX_CALL_DEPTH
            or self.b.calls >= MAX_CALLS
            or self.depth + 1 > MAX_DEPTH
        ):
            return False
        self.b.calls += 1
        self.b.called.add(words[0].text)
        body, at, _ = fn
        sub = _Reader(body, self.env, self.b, self.out, at, self.depth + 1)
        sub.args = [w.text for w in words[1:]]
        sub.call_line = self.call_line or start or self.line
        sub.calls_deep = self.calls_deep + 1
        sub.run()
        return True

    def positional(self, key: str, quoted: bool) -> str | None:
        """``$1``..``$9``, ``$@``, ``$*``, ``$#`` of the call being expanded (unset: empty); None outside a call
        (an unknown part) and for ``$0``."""
        args = self.args
        if args is None or key == "0":
            return None
        if key == "#":
            return str(len(args))
        if key == "@" and quoted:  # "$@": each argument its own word
            self.b.grow(sum(len(a) for a in args), self.line)
            return '" "'.join(re.sub(r'(["\\])', r"\\\1", a) for a in args)
        if key in "@*":
            return self.insert(" ".join(args), quoted)
        n = int(key)
        return self.insert(args[n - 1] if n <= len(args) else "", quoted)

    def emit(self, buf: list[str], start: int | None) -> None:
        text = "".join(buf)
        if not text.strip():
            return
        try:  # shlex reads a character at a time: a chunk with nothing to unquote is split at once
            raw = text.split() if not _QUOTING.search(text) else shlex.split(text, comments=False, posix=True)
        except ValueError as exc:
            raise ShellError(
                f"the command cannot be split like a shell does ({exc})", start or self.line
            ) from None
        words = []
        skip = False
        for w in raw:  # redirections (> file, 2>&1, >/dev/null) are not words of the command
            m = _REDIRECT.fullmatch(w)
            if skip or m:
                skip = m is not None and not m.group(1) and not skip
                continue
            words.append(Word(w, self.b.parts))
        env: dict = {}
        while words and _ASSIGN.fullmatch(words[0].text):  # A=b cmd: the command's environment
            name, value = _ASSIGN.fullmatch(words[0].text).groups()
            env[name] = Word(value, self.b.parts)
            words.pop(0)
        if not words:  # assignments alone: the script's variables
            for name, w in env.items():
                self.env[name] = w.text
            return
        head = posixpath.basename(words[0].text)
        if head in ("export", "readonly", "local", "declare", "typeset"):
            for w in words[1:]:
                m = _ASSIGN.fullmatch(w.text)
                if m:
                    self.env[m.group(1)] = m.group(2)
                if head == "export" and len(self.b.exported) < MAX_EXPORTED:
                    name = m.group(1) if m else w.text
                    if _NAME.fullmatch(name):
                        self.b.exported.add(name)
        elif head == "unset":
            for w in words[1:]:
                self.env.pop(w.text, None)
        if not env and self.call(words, start):
            return
        self.b.commands += 1
        if self.b.commands > MAX_COMMANDS:
            raise ShellError(f"more than {MAX_COMMANDS:,} commands", start or self.line)
        exported = {n: Word(self.env[n], self.b.parts) for n in self.b.exported if n in self.env}
        self.out.append(Command(words, self.call_line or start or self.line, env, exported))

    # -- here-documents: their bodies are data
    def heredoc_start(self) -> None:
        s = self.s
        j = self.i + 2
        strip = s[j : j + 1] == "-"
        j += strip
        while s[j : j + 1] in (" ", "\t"):
            j += 1
        m = re.compile(r"(['\"]?)([A-Za-z0-9_.-]+)\1").match(s, j)
        if m is None:
            self.i = j
            return
        self.heredocs.append((m.group(2), strip))
        self.i = m.end()

    def skip_heredocs(self) -> None:
        s, n = self.s, len(self.s)
        for delimiter, strip in self.heredocs:
            while self.i < n:
                j = s.find("\n", self.i)
                end = n if j < 0 else j
                body = s[self.i : end]
                self.i = end + 1
                self.line += 1
                if (body.lstrip("\t") if strip else body).rstrip("\r") == delimiter:
                    break
        self.heredocs = []

    # -- expansions
    def dollar(self, quoted: bool) -> str:
        """The expansion at ``self.i`` (``$...`` or a backquote): its value for shlex, or an unknown part's mark."""
        s, i = self.s, self.i
        if s[i] == "`":
            j = i + 1
            while j < len(s) and s[j] != "`":
                j += 2 if s[j] == "\\" else 1
            if j >= len(s):
                raise ShellError("a backquote is not closed", self.line)
            inner = s[i + 1 : j]
            self.i = j + 1
            return self.substitution(inner, "`" + inner + "`")
        nxt = s[i + 1 : i + 2]
        if nxt == "(":
            end = _closing(s, i + 1, "(", ")", self.line)
            inner = s[i + 2 : end]
            self.i = end + 1
            if inner.startswith("(") and inner.endswith(")"):  # $(( arithmetic ))
                return self.b.part(Part(s[i : end + 1]))
            return self.substitution(inner, s[i : end + 1])
        if nxt == "{":
            end = _closing(s, i + 1, "{", "}", self.line)
            self.i = end + 1
            return self.parameter(s[i + 2 : end], s[i : end + 1], quoted)
        m = _NAME.match(s, i + 1)
        if m:
            self.i = m.end()
            return self.value(m.group(0), "$" + m.group(0), quoted)
        if nxt and nxt in "@*#?$!-0123456789":
            self.i = i + 2
            got = self.positional(nxt, quoted) if nxt in "@*#0123456789" else None
            return got if got is not None else self.b.part(Part("$" + nxt))
        self.i = i + 1
        return "$"

    def substitution(self, inner: str, display: str) -> str:
        sub = self.child(inner, dict(self.env), self.line)
        found = sub.out
        sub.run()
        self.out.extend(found)  # they run, before the command they are part of
        self.line += inner.count("\n")
        return self.b.part(Part(display if len(display) <= 200 else display[:197] + "...", found))

    def parameter(self, body: str, display: str, quoted: bool) -> str:
        p = _POSITIONAL.fullmatch(body) if self.args is not None else None
        if p is not None:  # ${1}, ${1:-default}, ${@} of the call being expanded
            key, op, default = p.groups()
            n = int(key) if key.isdigit() else None
            value = None if n is not None and (n == 0 or n > len(self.args)) else ""
            if value is not None:
                value = self.positional(key, quoted)
            if n == 0:
                return self.b.part(Part(display))
            unset = n is not None and n > len(self.args)
            empty = not unset and n is not None and self.args[n - 1] == ""
            if op and (unset or (op.startswith(":") and empty)):
                return self.insert(self.expand_default(default), quoted)
            return value if value is not None else self.insert("", quoted)
        m = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-=])(.*))?", re.S).fullmatch(body)
        if m is None:  # ${#X}, ${X#pattern}, ${X/a/b}, ${1}: not evaluated
            return self.b.part(Part(display))
        name, op, default = m.groups()
        if op is None or name in self.env:
            value = self.env.get(name)
            if value is not None and op and op.startswith(":") and value == "":
                value = None
            if value is not None or op is None:
                return self.value(name, display, quoted)
        expanded = self.expand_default(default)
        if op.endswith("="):
            self.env[name] = expanded
        return self.insert(expanded, quoted)

    def expand_default(self, text: str) -> str:
        """A ``${X:-default}``'s word, expanded (its quotes removed) with the same rules."""
        sub = self.child(text, self.env, self.line)
        found = sub.out
        parts = []
        while sub.i < len(text):  # no operators end a default: read it as one word
            c = text[sub.i]
            if c in "$`":
                parts.append(sub.dollar(True))
            elif c == "\\" and sub.i + 1 < len(text):
                parts.append(text[sub.i + 1])
                sub.i += 2
            elif c in "'\"":
                sub.i += 1
            else:
                parts.append(c)
                sub.i += 1
        self.out.extend(found)
        return "".join(parts)

    def value(self, name: str, display: str, quoted: bool) -> str:
        value = self.env.get(name)
        if value is None:
            return self.b.part(Part(display, name=name))
        return self.insert(value, quoted)

    def insert(self, value: str, quoted: bool) -> str:
        """A known value as shlex input: one word's text inside double quotes; outside them its words (field
        splitting), their quotes and backslashes literal."""
        self.b.grow(len(value), self.line)
        if quoted:
            return re.sub(r'(["\\])', r"\\\1", value)
        return re.sub(r"([\"'\\;&|()<>#])", r"\\\1", value)


# shell functions (issue 35): ``name() { ...; }`` / ``function name [()] { ...; }`` at a command's start, each call
# with literal arguments expanded (its ``$1``, ``${1:-d}``, ``"$@"``). Bounded: MAX_FUNCTIONS definitions kept,
# MAX_CALL_DEPTH calls inside calls, MAX_CALLS expansions per script (then a call is a plain command), and the
# commands and characters they produce count in MAX_COMMANDS and MAX_EXPANDED like any.
MAX_FUNCTIONS = 256
MAX_CALL_DEPTH = 8
MAX_CALLS = 512
_FUNCTION = re.compile(
    r"(?:function[ \t]+)?([A-Za-z_][A-Za-z0-9_.:-]*)[ \t]*\([ \t]*\)[ \t\r\n]*\{(?=[ \t\r\n])"
    r"|function[ \t]+([A-Za-z_][A-Za-z0-9_.:-]*)[ \t\r\n]+\{(?=[ \t\r\n])"
)
_POSITIONAL = re.compile(r"(\d+|[@*#])(?:(:?[-=])(.*))?", re.S)


MAX_LOOP_WORDS = 64  # words of one for loop read one by one
_FOR = re.compile(r"for[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]+in[ \t]+([^;\n#]*?)[ \t]*(?:;|\n)\s*do\b")
_KEYWORD = re.compile(r"(?<![A-Za-z0-9_$.-])(for|while|until|do|done)(?![A-Za-z0-9_.=-])")


def _unquoted(s: str, at: int):
    """The index of each character of ``s`` from ``at`` that is outside quotes, escapes and comments, as sh reads
    them (a comment that runs to the end of the text ends the scan)."""
    i, quote, n = at, None, len(s)
    while i < n:
        c = s[i]
        if quote == "'":
            if c == "'":
                quote = None
        elif c == "\\":
            i += 1
        elif quote == '"':
            if c == '"':
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == at or s[i - 1] in " \t\n;"):
            j = s.find("\n", i)
            if j < 0:
                return
            i = j
            continue
        else:
            yield i
        i += 1


def _loop_end(s: str, at: int) -> tuple[int, int] | None:
    """(where a loop's body starts, the index of its ``done``) for a body starting at ``at`` (after ``do``):
    nested ``for``/``while``/``until`` ... ``done`` counted, quotes and comments skipped; None when not found."""
    depth, skip = 1, at
    for i in _unquoted(s, at):
        if i < skip or not (i == at or s[i - 1] in " \t\n;&|("):
            continue
        m = _KEYWORD.match(s, i)
        if m is None:
            continue
        skip = m.end()
        if m.group(1) == "done":
            depth -= 1
            if depth == 0:
                return at, i
        elif m.group(1) != "do":
            depth += 1
            if depth > MAX_DEPTH * 4:
                return None
    return None


def _body_end(s: str, at: int) -> int | None:
    """The index of the ``}`` that closes a function body starting at ``at`` (quotes, escapes and comments
    skipped, ``{``/``}`` nested), or None when none is found (then nothing is taken for a function)."""
    depth = 1
    for i in _unquoted(s, at):
        if s[i] == "{":
            depth += 1
            if depth > MAX_DEPTH * 4:
                return None
        elif s[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def _closing(s: str, at: int, open_: str, close: str, line: int, *, quotes: bool = True) -> int:
    """The index of the ``close`` that matches the ``open_`` at ``at`` (nesting respected, and the shell's quotes
    unless ``quotes`` is False: make counts brackets only, ``$(subst ',...)``)."""
    depth, i, quote, n = 0, at, None, len(s)
    while i < n:
        c = s[i]
        if not quotes and c in "'\"\\":
            pass
        elif quote == "'":
            if c == "'":
                quote = None
        elif c == "\\":
            i += 1
        elif quote == '"' and c == '"':
            quote = None
        elif quote is None and c in "'\"":
            quote = c
        elif quote is None and c == open_:
            depth += 1
            if depth > MAX_DEPTH * 4:
                raise ShellError(f"more than {MAX_DEPTH * 4} nested brackets", line)
        elif quote is None and c == close:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ShellError(f"a {open_!r} is not closed", line)


# ------------------------------------------------------------------------------------------------- commands
def simple(cmd: Command, *, depth: int = 0) -> list[Command]:
    """``cmd`` with what only runs it taken off (reserved words, ``exec``, ``env A=b``, ``nohup``, ``sudo``), and
    ``sh -c STRING`` opened into the commands of STRING (at ``cmd``'s line): the commands that do the work."""
    words, env = list(cmd.words), dict(cmd.env)
    while words:
        head = posixpath.basename(words[0].text)
        if head in _RESERVED or head in _RUNNERS:
            words.pop(0)
            while head in ("nice", "ionice") and words and words[0].text.startswith("-"):
                words.pop(0)
        elif head == "env":
            words.pop(0)
            while words and (words[0].text.startswith("-") or _ASSIGN.fullmatch(words[0].text)):
                m = _ASSIGN.fullmatch(words[0].text)
                if m:
                    env[m.group(1)] = Word(m.group(2), words[0].parts)
                words.pop(0)
        elif head == "sudo":
            words.pop(0)
            while words and words[0].text.startswith("-"):
                flag = words.pop(0).text
                if flag in ("-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t") and words:
                    words.pop(0)
        elif head in _SHELLS:
            c_at = next(
                (k for k, w in enumerate(words[1:], 1) if w.text.startswith("-") and "c" in w.text[1:]
                 and not w.text.startswith("--")),
                None,
            )  # fmt: skip
            if c_at is None or c_at + 1 >= len(words):
                break
            if depth >= MAX_DEPTH:
                raise ShellError(f"more than {MAX_DEPTH} nested sh -c strings", cmd.line)
            inner = words[c_at + 1]
            if not inner.known:  # sh -c "$CMD": what it runs is not known here
                break
            out = []
            for c in script(inner.text, line=cmd.line):
                c.line = cmd.line
                c.env = {**env, **c.env}
                c.exported = {**cmd.exported, **c.exported}
                out += simple(c, depth=depth + 1)
            return out
        else:
            break
    return [Command(words, cmd.line, env, cmd.exported)] if words else []


def commands(text: str, variables: dict | None = None, *, line: int = 1) -> list[Command]:
    """:func:`script`, each command made :func:`simple`: the commands that do the work, in order."""
    return [s for c in script(text, variables, line=line) for s in simple(c)]


# ------------------------------------------------------------------------------------------------- Makefiles
_MAKE_ASSIGN = re.compile(
    r"^(?:export\s+|override\s+)*([A-Za-z_][A-Za-z0-9_.-]*)\s*(::?=|:::=|\?=|\+=|!=|=)\s*(.*)$", re.S
)
_MAKE_RULE = re.compile(r"^[^\t#=][^=]*?(?<!:):(?!=)")
_MAKE_DIRECTIVE = re.compile(r"^\s*(ifdef|ifndef|ifeq|ifneq|else|endif|include|-include|sinclude|vpath)\b")
_MAKE_EXPORT = re.compile(r"^(export|unexport)(?:\s+(.*))?$", re.S)  # export A B / unexport A / export (all)


def makefile(text: str) -> list[Command]:
    """The commands of a Makefile's recipes, each line expanded with the Makefile's variables (``:=``, ``=``,
    ``?=``, ``+=``; ``$(shell ...)`` and other functions, automatic and undefined variables are unknown parts;
    ``$$`` is ``$``), then read as a script (its recipe prefix ``@``/``-``/``+`` taken off). Both branches of a
    conditional are read, in order. The variables the Makefile exports (``export A := b``, ``export A``, a bare
    ``export`` or ``.EXPORT_ALL_VARIABLES:``, less ``unexport A``) are the environment of the commands of a recipe
    line that reads it (its shell's ``$$A``, a ``docker compose`` run: ``Command.exported``, their values expanded
    as make does when it runs the recipe, again only after an assignment). Raises :class:`ShellError`."""
    if len(text) > MAX_TEXT:
        raise ShellError(f"more than {MAX_TEXT:,} characters", 1)
    text = text.replace("\x00", "")
    variables: dict[str, str] = {}
    budget = _Budget()
    out: list[Command] = []
    in_rule = False
    exported: set[str] = set()
    export_all = False
    lines = text.split("\n")

    cache: list = [-1, None]  # (the version of the variables it was expanded from, the exported environment)
    version = 0  # counts the assignments and exports read so far

    def run_recipe(line_text: str, at: int) -> list[Command]:
        names = variables if export_all else exported
        line_text = _make_expand(line_text, variables, budget, at, 0).lstrip(" \t@-+")
        if not names or ("$" not in line_text and "compose" not in line_text):
            env = {}  # what reads the environment: the recipe's shell ($$A) and a compose run (compose_runs)
        elif cache[0] != version:  # expanded again only when an assignment or an export changed it
            env = {}
            for name in sorted(names)[:MAX_EXPORTED]:
                if name in variables:
                    env[name] = _make_expand(variables[name], variables, budget, at, 1, (name,))
            cache[:] = [version, env]
        else:
            env = cache[1]
        budget.exported = set(env)
        return [s for c in _script_parts(line_text, budget, at, env) for s in simple(c)]

    n = 0
    while n < len(lines):
        first = n
        raw = lines[n]
        n += 1
        while raw.endswith("\\") and n < len(lines):  # a continuation
            raw = raw[:-1] + ("\\\n" if raw.startswith("\t") and in_rule else " ") + lines[n].lstrip(" \t")
            n += 1
        if raw.startswith("\t") and in_rule:
            if raw.strip():
                out += run_recipe(raw[1:], first + 1)
            continue
        stripped = raw.strip()
        if not stripped or stripped.startswith("#") or _MAKE_DIRECTIVE.match(stripped):
            continue
        version += 1
        m = _MAKE_EXPORT.fullmatch(stripped.split(" #", 1)[0].rstrip())
        if m and (m.group(2) is None or "=" not in m.group(2)):
            names = (m.group(2) or "").split()
            if not names and m.group(1) == "export":
                export_all = True
            for name in names:
                if m.group(1) == "unexport":
                    exported.discard(name)
                elif len(exported) < MAX_EXPORTED and _NAME.fullmatch(name):
                    exported.add(name)
            in_rule = False
            continue
        m = _MAKE_ASSIGN.match(stripped)
        if m:
            name, op, value = m.groups()
            if stripped.startswith("export") and len(exported) < MAX_EXPORTED:
                exported.add(name)
            value = value.split(" #", 1)[0].rstrip() if "#" in value else value
            if op in (":=", "::=", ":::="):
                variables[name] = _make_expand(value, variables, budget, first + 1, 0)
            elif op == "?=":
                variables.setdefault(name, value)
            elif op == "+=":
                variables[name] = f"{variables[name]} {value}" if variables.get(name) else value
            elif op == "!=":
                variables[name] = budget.part(Part(f"$(shell {value})"))
            else:
                variables[name] = value
            continue
        if _MAKE_RULE.match(raw):
            in_rule = True
            if raw.startswith(".EXPORT_ALL_VARIABLES:"):
                export_all = True
            recipe = raw.partition(";")[2] if ";" in raw.partition("#")[0] else ""
            if recipe.strip():
                out += run_recipe(recipe, first + 1)
            continue
        in_rule = False
    return out


def _script_parts(text: str, budget: _Budget, line: int, env: dict | None = None) -> list[Command]:
    """A recipe line as a script, sharing the Makefile's unknown parts (its marks index ``budget.parts``);
    ``env``: the variables make exports to it (NAME -> expanded text)."""
    out: list[Command] = []
    _Reader(text, dict(env or {}), budget, out, line, 0).run()
    return out


def _make_expand(
    text: str, variables: dict, budget: _Budget, line: int, depth: int, active: tuple = ()
) -> str:
    """``text`` with the Makefile's variables expanded (``active``: the variables being expanded around it; one
    that refers to itself, which make refuses, is an unknown part, never a guess)."""
    if depth > MAX_DEPTH:
        raise ShellError(f"Makefile variables nest more than {MAX_DEPTH} deep (a loop?)", line)
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        j = text.find("$", i)
        if j < 0 or j + 1 >= n:
            out.append(text[i:])
            break
        out.append(text[i:j])
        i = j
        nxt = text[i + 1]
        if nxt == "$":
            out.append("$")
            i += 2
            continue
        if nxt in "({":
            end = _closing(text, i + 1, nxt, ")" if nxt == "(" else "}", line, quotes=False)
            body = text[i + 2 : end]
            display = text[i : end + 1]
            i = end + 1
        else:
            body, display = nxt, "$" + nxt
            i += 2
        name = body.strip()
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", name) and name in variables and name not in active:
            value = _make_expand(variables[name], variables, budget, line, depth + 1, (*active, name))
            budget.grow(len(value), line)
            out.append(value)
        else:  # a function ($(shell ...), $(wildcard ...)), an automatic or undefined variable
            out.append(budget.part(Part(display, name=name if _NAME.fullmatch(name) else None)))
    return "".join(out)
