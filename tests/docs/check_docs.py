#!/usr/bin/python3
"""Fails when the docs no longer match the programs they describe.

    check_docs.py --pto PTO --docs DIR [--examples DIR] [--pto-studio BIN]
                  [--pypto-path DIR] [--screenshots SCRIPT] [--no-json] [--verbose]

Checks, over every docs/*.md (the file and line of each problem are printed):

  options  Every option a doc gives to `pto CMD` (an invocation `pto CMD ...
           --opt`, in a code span or block) or to `pto-studio` appears in that
           program's --help. In a section whose heading names a command
           (`## \\`pto run PROJECT [--json FILE]\\``) a code span that starts
           with an option (`--json FILE`) is that command's. And the reverse:
           every option `pto CMD --help` lists is documented for CMD in
           cli.md, every one `pto-studio --help` lists somewhere in the docs.
  json     Every key docs/cli.md documents for a command's JSON report (the
           first column of a table headed `field` or `key`, the `{a, b, c}`
           lists in its cells, and ```json examples of a report) appears in
           that command's real `--json` output, run on copies of small
           examples. Keys marked `key?` are optional and not required; keys
           of a `## Shared JSON fields` section may come from any command.
           `{name: value}` with one entry is a map whose key is a placeholder.
  pypto    With --pypto-path: every `pypto.NAME` (and `pypto.a.b`) a doc
           names exists in the package; in pypto-api.md every bare name in
           the tables of its "Operations" section exists in `pypto` or
           `pypto.experimental`, and its "Not modelled" section lists exactly
           the operations the package refuses (each raises KernelError).
  links    Every image a doc shows is one scripts/make-screenshots.sh makes
           (its `shot NAME.png ...` and `shot_failing NAME.png ...` lines),
           and every relative link points at a file that exists (and, for
           `file.md#anchor`, at a heading there).

The JSON check runs about 30 pto commands on copies of softmax,
muls_add_matmul_rowsum, calibration and a small kernel of its own (about 10 s). Exit 0
when all holds, 1 with one line per problem, 2 on bad usage.
Standard library only; runs with Debian's /usr/bin/python3.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# --- reading the programs' --help ------------------------------------------

OPTION_AT_LINE_START = re.compile(r"^ {2}(-[\w-]+(?:, ?-[\w-]+)*)")


def run_text(argv, env=None, ok_codes=(0,)):
    result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=120)
    if result.returncode not in ok_codes:
        raise RuntimeError(f"{' '.join(map(str, argv))} exited {result.returncode}:\n{result.stderr.strip()}")
    return result.stdout


def help_options(text):
    """The options a --help text defines (the lines that start with one, in
    its Options section; CLI11's and Qt's layouts alike), each mapped to its
    spellings: {"-o": {"-o", "--output"}, "--output": {...}}."""
    options = {}
    in_options = False
    for line in text.splitlines():
        if re.match(r"^\S.*:\s*$", line):  # a section title: "Options:", "Subcommands:", "Positionals:"
            in_options = line.strip().lower().startswith("options")
            continue
        if not in_options:
            continue
        match = OPTION_AT_LINE_START.match(line)
        if match:
            spellings = set(re.split(r",\s?", match.group(1)))
            for option in spellings:
                options[option] = spellings
    return options


def subcommands(text):
    names = []
    in_section = False
    for line in text.splitlines():
        if re.match(r"^\S.*:\s*$", line):
            in_section = line.strip().lower().startswith("subcommands")
            continue
        match = re.match(r"^ {2}([a-z][\w-]*)\s", line)
        if in_section and match:
            names.append(match.group(1))
    return names


class Programs:
    """What `pto` and `pto-studio` accept, from their --help."""

    def __init__(self, pto, studio):
        top = run_text([pto, "--help"])
        self.global_options = help_options(top)
        self.commands = {name: help_options(run_text([pto, name, "--help"])) for name in subcommands(top)}
        if not self.commands:
            raise RuntimeError(f"{pto} --help lists no subcommands")
        self.studio_options = None
        if studio:
            with tempfile.TemporaryDirectory(prefix="pto-docs-xdg-") as runtime:
                env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
                if not env.get("XDG_RUNTIME_DIR"):
                    os.chmod(runtime, 0o700)
                    env["XDG_RUNTIME_DIR"] = runtime
                self.studio_options = help_options(run_text([studio, "--help"], env=env))
        self.any_pto_option = set(self.global_options)
        for options in self.commands.values():
            self.any_pto_option |= set(options)


# --- reading the docs --------------------------------------------------------

class Problems:
    def __init__(self):
        self.items = []

    def add(self, where, text):
        self.items.append(f"{where}: {text}")


class Unit:
    """A piece of code in a doc: an inline code span or a line of a fenced
    block, with the command its section is about."""

    def __init__(self, doc, line, text, context, inline, section):
        self.doc, self.line, self.text, self.context, self.inline, self.section = doc, line, text, context, inline, section

    @property
    def where(self):
        return f"{self.doc.name}:{self.line}"


class Doc:
    def __init__(self, path):
        self.path = path
        self.name = f"docs/{path.name}"
        self.lines = path.read_text(encoding="utf-8").splitlines()
        self.units = []       # code spans and code lines
        self.blocks = []      # fenced blocks: (first line number, language, text, context, section)
        self.headings = []    # (line, level, text)
        self.tables = []      # (line of the header, header cells, rows: [(line, cells)], context, section)
        self.links = []       # (line, is_image, target)
        self._parse()

    def _parse(self):
        context = {2: None, 3: None}
        section = {2: "", 3: ""}
        fence = None
        table = None
        for number, line in enumerate(self.lines, 1):
            if fence is not None:
                if line.strip().startswith(fence["marker"]):
                    self.blocks.append((fence["line"], fence["lang"], "\n".join(fence["text"]), fence["context"], fence["section"]))
                    for offset, code in join_continuations(fence["text"]):
                        self.units.append(Unit(self, fence["line"] + 1 + offset, code, fence["context"], False, fence["section"]))
                    fence = None
                else:
                    fence["text"].append(line)
                continue
            opening = re.match(r"^\s*(```+|~~~+)\s*(\w*)", line)
            if opening:
                ctx, sec = current(context, section)
                fence = {"marker": opening.group(1), "lang": opening.group(2), "line": number, "text": [], "context": ctx, "section": sec}
                table = None
                continue
            heading = re.match(r"^(#{1,6})\s+(.*)$", line)
            if heading:
                level = len(heading.group(1))
                text = heading.group(2).strip()
                self.headings.append((number, level, text))
                found = command_in_heading(text)
                if level <= 2:
                    context = {2: found, 3: None}
                    section = {2: text, 3: ""}
                elif level == 3:
                    context[3] = found
                    section[3] = text
                table = None
            ctx, sec = current(context, section)
            for span in re.findall(r"(?<!`)`([^`]+)`(?!`)", line):
                self.units.append(Unit(self, number, span, ctx, True, sec))
            for image, target in re.findall(r"(!?)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line):
                self.links.append((number, image == "!", target))
            for target in re.findall(r"<img\s[^>]*src=\"([^\"]+)\"", line):
                self.links.append((number, True, target))
            if line.lstrip().startswith("|"):
                cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
                if table is None:
                    table = {"line": number, "header": [c.lower() for c in cells], "rows": [], "context": ctx, "section": sec}
                    self.tables.append(table)
                elif not all(re.fullmatch(r":?-+:?", c) for c in cells):
                    table["rows"].append((number, split_table_row(line)))
            else:
                table = None


def current(context, section):
    ctx = context[3] if context[3] is not None else context[2]
    sec = section[3] or section[2]
    return ctx, sec


def split_table_row(line):
    """Cells of a table row, keeping `|` inside code spans (`a | b`)."""
    cells, cell, in_code = [], "", False
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    for char in body:
        if char == "`":
            in_code = not in_code
        if char == "|" and not in_code:
            cells.append(cell.strip())
            cell = ""
        else:
            cell += char
    cells.append(cell.strip())
    return cells


def join_continuations(lines):
    """Shell lines with their `\\` continuations joined: (offset, text)."""
    joined, start, buffer = [], None, ""
    for offset, line in enumerate(lines):
        if start is None:
            start = offset
        if line.rstrip().endswith("\\"):
            buffer += line.rstrip()[:-1] + " "
            continue
        joined.append((start, buffer + line))
        start, buffer = None, ""
    if buffer:
        joined.append((start, buffer))
    return joined


def command_in_heading(text):
    """The program a heading is about: ('pto', CMD) for `pto CMD ...`,
    ('pto-studio', None) for `pto-studio ...`, else None."""
    for span in re.findall(r"`([^`]+)`", text):
        words = span.split()
        if words and words[0] == "pto" and len(words) > 1 and re.fullmatch(r"[a-z][\w-]*", words[1]):
            return ("pto", words[1])
        if words and words[0] == "pto-studio":
            return ("pto-studio", None)
    return None


# --- options -----------------------------------------------------------------

def segments(text):
    """Splits code at shell separators (| && || ; # $( ) that are not inside
    brackets, where a synopsis's `[--check | --no-check]` means 'or'."""
    parts, current_part, depth, i = [], "", 0, 0
    while i < len(text):
        char = text[i]
        if char in "[{":
            depth += 1
        elif char in "]}" and depth > 0:
            depth -= 1
        elif char == "(" and not text[max(0, i - 1):i + 1] == "$(":
            depth += 1
        elif char == ")" and depth > 0:
            depth -= 1
        if depth == 0:
            for separator in ("&&", "||", "$(", "|", ";", "`"):
                if text.startswith(separator, i):
                    parts.append(current_part)
                    current_part = ""
                    i += len(separator)
                    break
            else:
                if char == "#" and (i == 0 or text[i - 1].isspace()):
                    parts.append(current_part)
                    current_part = ""
                else:
                    current_part += char
                i += 1
            continue
        current_part += char
        i += 1
    parts.append(current_part)
    return parts


def clean(token):
    return token.strip("\"'[](),{}$>").rstrip(".:")


def program_of(token):
    word = clean(token)
    if word == "pto" or word.endswith("/pto"):
        return "pto"
    if word == "pto-studio" or word.endswith("/pto-studio"):
        return "pto-studio"
    return None


def option_tokens(tokens, short=True):
    pattern = r"--[A-Za-z][\w-]*" if not short else r"--?[A-Za-z][\w-]*"
    found = []
    for token in tokens:
        word = token.strip("\"'[](),{}")
        match = re.fullmatch(r"(" + pattern + r")(?:=.*|\.\.\.)?", word)
        if match:
            found.append(match.group(1))
    return found


class Attribution:
    """Which options the docs give to which command."""

    def __init__(self):
        self.pto = {}        # command ('' for global) -> {option: [where, ...]}
        self.studio = {}     # option -> [where]
        self.shared = {}     # bare options outside a command's section -> [where]
        self.unknown_commands = []  # (where, word)
        self.in_cli_md = {}  # command -> set of options cli.md gives it


def attribute_options(docs, programs):
    seen = Attribution()
    for doc in docs:
        for unit in doc.units:
            explicit = False
            for segment in segments(unit.text):
                tokens = segment.split()
                for index, token in enumerate(tokens):
                    program = program_of(token)
                    if program is None:
                        continue
                    explicit = True
                    rest = tokens[index + 1:]
                    if program == "pto-studio":
                        for option in option_tokens(rest):
                            seen.studio.setdefault(option, []).append(unit.where)
                        break
                    command = ""
                    if rest and not rest[0].startswith("-"):
                        word = clean(rest[0])
                        if word in programs.commands:
                            command = word
                            rest = rest[1:]
                        elif re.fullmatch(r"[a-z][a-z-]*", word) and word not in ("is", "and", "or", "the", "as", "on", "itself"):
                            seen.unknown_commands.append((unit.where, word))
                            break
                        else:
                            break  # `pto SUBCOMMAND`, `pto <cmd>`: a placeholder
                    for option in option_tokens(rest):
                        seen.pto.setdefault(command, {}).setdefault(option, []).append(unit.where)
                        if doc.path.name == "cli.md":
                            seen.in_cli_md.setdefault(command, set()).add(option)
                    break
            if explicit or not unit.inline:
                continue
            # A span that starts with an option belongs to its section's command.
            if not re.match(r"^[\[(]?--[A-Za-z]", unit.text.strip()):
                continue
            options = option_tokens(unit.text.split(), short=False)
            if unit.context is None:
                if doc.path.name == "cli.md":
                    for option in options:
                        seen.shared.setdefault(option, []).append(unit.where)
                continue
            program, command = unit.context
            for option in options:
                if program == "pto-studio":
                    seen.studio.setdefault(option, []).append(unit.where)
                else:
                    seen.pto.setdefault(command, {}).setdefault(option, []).append(unit.where)
                    if doc.path.name == "cli.md":
                        seen.in_cli_md.setdefault(command, set()).add(option)
    return seen


def check_options(docs, programs, problems):
    seen = attribute_options(docs, programs)
    for where, word in seen.unknown_commands:
        problems.add(where, f"`pto {word}`: pto has no command '{word}' (pto --help lists {', '.join(programs.commands)})")
    for command, options in sorted(seen.pto.items()):
        accepted = set(programs.global_options) | set(programs.commands.get(command, {}))
        name = f"pto {command}".strip()
        for option, places in sorted(options.items()):
            if option not in accepted:
                for where in places:
                    problems.add(where, f"{name} has no option {option} (not in `{name} --help`)")
    for option, places in sorted(seen.shared.items()):
        if option not in programs.any_pto_option:
            for where in places:
                problems.add(where, f"no pto command has the option {option}")
    if programs.studio_options is not None:
        for option, places in sorted(seen.studio.items()):
            if option not in programs.studio_options:
                for where in places:
                    problems.add(where, f"pto-studio has no option {option} (not in `pto-studio --help`)")
    # The reverse: every option of every command is documented in cli.md.
    # An option counts as documented under any of its spellings (-o, --output).
    def undocumented(options, documented, skip):
        missing = set()
        for option, spellings in options.items():
            if option not in skip and not (spellings & documented):
                missing.add(max(spellings, key=len))
        return sorted(missing)

    for command, options in programs.commands.items():
        for option in undocumented(options, seen.in_cli_md.get(command, set()), {"-h", "--help"}):
            problems.add("docs/cli.md", f"`pto {command} --help` lists {option}, which cli.md does not document for pto {command}")
    global_documented = set(seen.shared) | seen.in_cli_md.get("", set())
    for option in undocumented(programs.global_options, global_documented, {"-h"}):
        problems.add("docs/cli.md", f"`pto --help` lists the global option {option}, which cli.md does not document")
    if programs.studio_options is not None:
        for option in undocumented(programs.studio_options, set(seen.studio), {"-h", "--help", "--help-all", "-v", "--version"}):
            problems.add("docs", f"`pto-studio --help` lists {option}, which no doc gives to pto-studio")
    return seen


# --- JSON keys ---------------------------------------------------------------

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def split_top(text, separator=","):
    parts, depth, current_part, quote = [], 0, "", None
    for char in text:
        if quote:
            current_part += char
            if char == quote:
                quote = None
            continue
        if char in "\"":
            quote = char
        elif char in "{[(":
            depth += 1
        elif char in "}])":
            depth -= 1
        if char == separator and depth == 0:
            parts.append(current_part)
            current_part = ""
        else:
            current_part += char
    parts.append(current_part)
    return [p.strip() for p in parts if p.strip()]


def braces_in(text):
    """The top-level {...} groups of a text."""
    groups, depth, start = [], 0, None
    for i, char in enumerate(text):
        if char == "{":
            if depth == 0:
                start = i
            depth += 1
        elif char == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                groups.append(text[start + 1:i])
    return groups


def keys_of_brace(body, keys, optional):
    """Keys of a `{a, b?, c: {d, e}, f[] {g}, h (note)}` listing."""
    elements = split_top(body)
    if len(elements) == 1 and re.match(r"^\"?" + IDENT + r"\"?\s*:", elements[0]):
        # {name: value}: a map, its key a placeholder; look inside the value.
        value = elements[0].split(":", 1)[1]
        for inner in braces_in(value):
            keys_of_brace(inner, keys, optional)
        return
    for element in elements:
        for alternative in split_top(element, "|"):
            match = re.match(r"^\"?(" + IDENT + r")\"?(\?)?(\[\])?", alternative)
            if not match:
                continue
            name = match.group(1)
            if match.group(2) or "?" in alternative[:len(name) + 4]:
                optional.add(name)
            else:
                keys.add(name)
            rest = alternative[match.end():]
            rest = re.sub(r"^\s*\([^)]*\)", "", rest)  # an explanation in parentheses
            for inner in braces_in(rest):
                keys_of_brace(inner, keys, optional)


def keys_of_first_cell(cell, keys, optional):
    for span in re.findall(r"`([^`]+)`", cell):
        for path in split_top(span):
            path = path.strip()
            if not re.match(r"^" + IDENT, path):
                continue
            # `summary.args[]`, `tile_sites[].check`, `published_us | bound_us`
            for alternative in path.split("|"):
                alternative = alternative.strip()
                is_optional = alternative.endswith("?")
                for part in re.findall(IDENT, re.sub(r"\{.*", "", alternative)):
                    (optional if is_optional else keys).add(part)
            for inner in braces_in(span):
                keys_of_brace(inner, keys, optional)


def json_keys(value, keys):
    if isinstance(value, dict):
        for key, inner in value.items():
            keys.add(key)
            json_keys(inner, keys)
    elif isinstance(value, list):
        for inner in value:
            json_keys(inner, keys)


def documented_keys(cli):
    """{command or '*': {key: where}} and the optional keys, from cli.md."""
    required, optional_keys = {}, set()

    def add(context, section, names, where):
        command = context[1] if context and context[0] == "pto" else ("*" if "shared json" in section.lower() else None)
        if command is None:
            return
        for name in names:
            required.setdefault(command, {}).setdefault(name, where)

    for table in cli.tables:
        if not table["header"] or table["header"][0] not in ("field", "key"):
            continue
        for line, cells in table["rows"]:
            keys, optional = set(), set()
            keys_of_first_cell(cells[0], keys, optional)
            row_is_optional = bool(optional) and not keys
            for cell in cells[1:]:
                for span in re.findall(r"`([^`]+)`", cell):
                    for inner in braces_in(span):
                        keys_of_brace(inner, keys, optional)
            if row_is_optional or (cells[1:] and cells[-1].lower().startswith("optional")):
                optional |= keys
                keys = set()
            optional_keys |= optional
            add(table["context"], table["section"], sorted(keys - optional), f"{cli.name}:{line}")
    for line, lang, text, context, section in cli.blocks:
        body = text
        first = text.lstrip().splitlines()[0] if text.strip() else ""
        shown_by = re.match(r"^\$ (?:\S*/)?pto ([a-z][\w-]*)", first)
        if shown_by:
            body = text.lstrip().split("\n", 1)[1] if "\n" in text.lstrip() else ""
        try:
            value = json.loads(body)
        except ValueError:
            continue
        if not isinstance(value, dict):
            continue
        if "command" not in value and not shown_by:
            continue
        keys = set()
        json_keys(value, keys)
        add(context, section, sorted(keys), f"{cli.name}:{line}")
    return required, optional_keys


BRANCHY_KERNEL = """import pypto

B = pypto.DYNAMIC


@pypto.frontend.jit
def branchy(x: pypto.Tensor((B, 64), pypto.DT_FP32), y: pypto.Tensor((B, 64), pypto.DT_FP32)):
    pypto.set_vec_tile_shapes(1, 64)
    for i in pypto.loop(0, x.shape[0], 1, name="rows", idx_name="i"):
        if pypto.cond(pypto.is_loop_begin(i)):
            y[i:i + 1, :] = x[i:i + 1, :] * 0.0
        else:
            y[i:i + 1, :] = x[i:i + 1, :] + 1.0
    for j in pypto.loop(0, x.shape[0], 1, name="again", idx_name="j", submit_before_loop=True):
        y[j:j + 1, :] = y[j:j + 1, :] * 2.0
"""

BRANCHY_PROJECT = {
    "name": "branchy", "source": "kernel.py", "entry": "branchy", "bindings": {"B": 4},
    "args": [{"name": "x", "shape": ["B", 64], "dtype": "float32", "init": {"kind": "arange"}},
             {"name": "y", "shape": ["B", 64], "dtype": "float32"}],
}


class Runner:
    def __init__(self, pto, examples, work):
        self.pto, self.examples, self.work = pto, examples, work
        self.outputs = {}  # command -> set of keys
        self.log = []

    def project(self, example, name=None):
        target = self.work / (name or example)
        shutil.copytree(self.examples / example, target, ignore=shutil.ignore_patterns(".pto", "__pycache__"))
        return target

    def json_of(self, command, args, ok_codes=(0,), stdout_is_json=False, record=True):
        argv = [self.pto, command] + [str(a) for a in args]
        if not stdout_is_json:
            argv += ["--json", "-"]
        started = time.monotonic()
        text = run_text(argv, ok_codes=ok_codes)
        self.log.append(f"{time.monotonic() - started:6.2f} s  {' '.join(argv[1:])}")
        try:
            value = json.loads(text)
        except ValueError as error:
            raise RuntimeError(f"{' '.join(map(str, argv))} did not print JSON ({error}): {text[:200]!r}") from None
        if record:
            json_keys(value, self.outputs.setdefault(command, set()))
        return value

    def run_all(self):
        softmax = self.project("softmax")
        mixed = self.project("muls_add_matmul_rowsum")
        # A project with an unknown key: a warning, for the diagnostics' fields.
        noisy = self.project("softmax", "softmax_noisy")
        text = (noisy / "pto-project.json").read_text()
        (noisy / "pto-project.json").write_text(text.replace('"machine"', '"colour": "blue",\n  "machine"', 1))

        # A dynamic dim, a loop with two paths (pypto.cond) and a loop barrier: the graphs' loop, condition and barrier fields.
        branchy = self.work / "branchy"
        branchy.mkdir()
        (branchy / "kernel.py").write_text(BRANCHY_KERNEL)
        (branchy / "pto-project.json").write_text(json.dumps(BRANCHY_PROJECT, indent=2))

        self.json_of("check", [softmax])
        self.json_of("check", [noisy])
        self.json_of("graph", [branchy, "--stage", "tensor"], stdout_is_json=True)
        self.json_of("graph", [branchy, "--stage", "exec"], stdout_is_json=True)
        for stage in ("tensor", "tile", "block", "exec"):
            self.json_of("graph", [mixed, "--stage", stage], stdout_is_json=True)
        self.json_of("graph", [softmax, "--stage", "block"], stdout_is_json=True)
        self.json_of("graph", [mixed, "--stage", "tile", "--group", "subgraph", "--after", "GraphPartition"], stdout_is_json=True)
        self.json_of("compile", [softmax])
        self.json_of("passes", [mixed, "--diff", "3", "4"])
        self.json_of("run", [softmax])
        self.json_of("run", [mixed, "--mode", "functional"])
        self.json_of("run", [softmax, "--no-check", "--no-record"])
        self.json_of("report", [softmax, "--task-bounds", "--by-line"])
        self.json_of("report", [mixed])
        self.json_of("report", [mixed, "--memory", "--task", "0", "--no-record"])
        self.json_of("report", [softmax, "--task", "0", "--no-record"])
        self.json_of("report", [softmax, "--bubbles", "--no-record"])
        advice = self.json_of("advise", [softmax])
        suggestion = advice["suggestions"][0]["id"] if advice.get("suggestions") else None
        if suggestion:
            self.json_of("apply", [softmax, "--suggestion", suggestion])
        self.json_of("run", [softmax])  # a second recorded run, after the change
        self.json_of("runs", [softmax])
        self.json_of("compare", [softmax, "previous", "latest"])
        self.json_of("tune", [softmax, "--budget", "6"])
        self.json_of("settings", [softmax])
        self.json_of("settings", [mixed])
        # The trust store is the one the test environment points at (XDG_CONFIG_HOME).
        self.json_of("trust", [softmax])
        self.json_of("trust", ["--list"])
        self.json_of("trust", [softmax, "--revoke"])
        self.json_of("validate", ["--case", "indexer_prolog_linear_int8", "--case", "exp_chain_64_fp32_vector_bound_a2",
                                  "--case", "indexer_prolog_hadamard", "--case", "gdn_inverse_blocks_to_one_tile"])
        self.json_of("export-config", [softmax, "--run"], stdout_is_json=True)
        # A "measured" trace: the calibration example's own simulation, given twice (one is held out).
        calibration = self.project("calibration")
        measured = self.work / "measured.json"
        run_text([self.pto, "run", str(calibration), "--no-check", "--no-record", "--trace", str(measured)])
        self.json_of("calibrate", [calibration, measured, measured, "--budget", "40"])
        # PyPTO's own artifacts, the hand-written ones the tests read.
        artifacts = Path(__file__).resolve().parents[1] / "data" / "pypto_artifacts"
        for artifact in ("passes", "passes/Pass_004_ExpandFunction/Before_004_ExpandFunction_TENSOR_softmax_2.json",
                         "After_030_OoOSchedule_TENSOR_softmax_2_LEAF_program_id_00_155_Block_Graph_Health_Report.json",
                         "merged_swimlane.json", "trace_core3.json"):
            self.json_of("inspect", [artifacts / artifact])


def check_json(cli, runner, problems):
    required, _optional = documented_keys(cli)
    everything = set()
    for keys in runner.outputs.values():
        everything |= keys
    for command, keys in sorted(required.items()):
        if command == "*":
            actual, what = everything, "any command's"
        elif command not in runner.outputs:
            if command not in ("new", "import-config"):
                problems.add(cli.name, f"cli.md documents JSON keys for `pto {command}`, but this test runs no pto {command}; add it to Runner.run_all")
            continue
        else:
            actual, what = runner.outputs[command], f"`pto {command}`'s"
        for key, where in sorted(keys.items(), key=lambda item: item[1]):
            if key not in actual:
                problems.add(where, f"JSON key '{key}' is not in {what} --json output")
    return required


# --- the pypto package ------------------------------------------------------

PYPTO_DUMP = r"""
import json, sys, pypto
from pypto import _api_extras, _experimental
spaces = {"pypto": pypto, "pypto.experimental": pypto.experimental}
resolved = []
for dotted in json.loads(sys.stdin.read()):
    value = pypto
    try:
        for part in dotted.split(".")[1:]:
            value = getattr(value, part)
    except Exception:
        continue
    resolved.append(dotted)
unsupported = sorted(_api_extras.unsupported_functions())
refused = []
for name in unsupported:
    try:
        getattr(pypto, name)()
    except pypto.KernelError:
        refused.append(name)
    except Exception:
        pass
print(json.dumps({"attrs": {key: sorted(dir(value)) for key, value in spaces.items()}, "resolved": resolved,
                  "unsupported": refused,
                  "experimental_unsupported": sorted(getattr(_experimental, "_UNSUPPORTED", {}))}))
"""


def check_pypto(docs, package, problems):
    mentions = []  # (where, dotted name)
    for doc in docs:
        for unit in doc.units:
            for dotted in re.findall(r"(?<![\w.])(pypto(?:\.[A-Za-z_]\w*)+)", unit.text):
                mentions.append((unit.where, dotted))
    env = dict(os.environ, PYTHONPATH=str(package), PYTHONDONTWRITEBYTECODE="1")
    try:
        result = subprocess.run([sys.executable, "-c", PYPTO_DUMP], input=json.dumps(sorted({d for _, d in mentions})),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=120)
        if result.returncode != 0:
            raise RuntimeError(result.stderr.strip())
        info = json.loads(result.stdout)
    except (RuntimeError, ValueError, OSError, subprocess.TimeoutExpired) as error:
        problems.add("tests/docs/check_docs.py", f"cannot import pypto from {package}: {error}")
        return
    attrs = {key: set(values) for key, values in info["attrs"].items()}
    resolved = set(info["resolved"])
    for where, dotted in mentions:
        if dotted not in resolved:
            problems.add(where, f"{dotted} does not exist in the pypto package")
    api = next((doc for doc in docs if doc.path.name == "pypto-api.md"), None)
    if api is None:
        return
    known = attrs["pypto"] | attrs["pypto.experimental"]
    for table in api.tables:
        if table["section"].lower() != "operations":
            continue
        for line, cells in table["rows"]:
            for cell in cells[1:]:
                for name in re.findall(r"`([a-z_][a-z0-9_]*)`", cell):
                    if name not in known:
                        problems.add(f"{api.name}:{line}", f"`{name}`: pypto has no such operation")
    listed = {}
    for unit in api.units:
        if unit.section.lower() == "not modelled" and unit.inline and re.fullmatch(r"[a-z_][a-z0-9_]*", unit.text):
            listed.setdefault(unit.text, unit.where)
    refused = set(info["unsupported"]) | set(info["experimental_unsupported"])
    for name, where in sorted(listed.items()):
        if name not in refused:
            problems.add(where, f"`{name}` is listed as not modelled, but pypto does not refuse it")
    for name in sorted(refused - set(listed)):
        problems.add(f"{api.name}", f"pypto refuses `{name}` (a KernelError: not modelled), which the \"Not modelled\" section does not list")


# --- images and links --------------------------------------------------------

def screenshot_names(script):
    names = set()
    for line in script.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^\s*shot(?:_failing)?\s+([\w.-]+\.png)\b", line)
        if match:
            names.add(match.group(1))
    return names


def slug(heading):
    """GitHub's anchor for a heading."""
    text = re.sub(r"`", "", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def check_links(docs, shots, problems):
    anchors = {}
    for doc in docs:
        counts = {}
        names = set()
        for _, _, text in doc.headings:
            base = slug(text)
            n = counts.get(base, 0)
            counts[base] = n + 1
            names.add(base if n == 0 else f"{base}-{n}")
        anchors[doc.path.resolve()] = names
    for doc in docs:
        for line, is_image, target in doc.links:
            where = f"{doc.name}:{line}"
            if re.match(r"^[a-z]+:", target) or target.startswith("//"):
                continue  # http:, https:, mailto:
            path_part, _, anchor = target.partition("#")
            file = (doc.path.parent / path_part).resolve() if path_part else doc.path.resolve()
            if is_image:
                if Path(path_part).name not in shots:
                    problems.add(where, f"image {target} is not made by scripts/make-screenshots.sh (no `shot {Path(path_part).name}` line)")
            if path_part and not file.exists():
                problems.add(where, f"link to {target}: no such file")
                continue
            if anchor and file.suffix == ".md":
                known = anchors.get(file)
                if known is None:
                    known = {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.*)$", file.read_text(encoding="utf-8"), re.M)}
                if anchor not in known:
                    problems.add(where, f"link to {target}: {file.name} has no heading with the anchor #{anchor}")


# --- main --------------------------------------------------------------------

OPTIONS_BEGIN = "<!-- options table: made from the declarations (pto passes --list); " \
                "tests/docs/check_docs.py --update-options rewrites it -->"
OPTIONS_END = "<!-- end of options table -->"


def options_table(listing):
    """The options table of project-format.md, from `pto passes --list --json -`."""
    rows = ["| option | read by | type | default | meaning |", "|---|---|---|---|---|"]

    def form(option):
        text = option["type"]
        if option["type"] == "int":
            text += f" {option['minimum']} to {option['maximum']}"
        for choice in option.get("choices", []):
            text += f"<br>{choice['value']}: {choice['meaning']}"
        return text

    def row(section, option, read_by):
        summary = option["summary"].replace("|", "\\|")
        rows.append(f"| `{section}.{option['name']}` | {read_by} | {form(option)} | {option['default_text']} | {summary} |")

    for option in listing["runner_options"]:
        row("pass_options", option, "the pass runner")
    for pass_ in listing["pipeline"]:
        for option in pass_["options"]:
            row("pass_options", option, pass_["name"])
    for option in listing["runtime_options"]:
        row("runtime_options", option, "the runtime scheduler")
    return "\n".join(rows)


def check_options_table(pto, docs_dir, problems, update):
    """project-format.md's options table is the one the declarations make (or is rewritten to it)."""
    path = docs_dir / "project-format.md"
    listing = json.loads(run_text([pto, "passes", "--list", "--json", "-"]))
    made = options_table(listing)
    text = path.read_text()
    if OPTIONS_BEGIN not in text or OPTIONS_END not in text:
        problems.add(str(path), "has no options table (its markers are missing)")
        return
    head, rest = text.split(OPTIONS_BEGIN, 1)
    current, tail = rest.split(OPTIONS_END, 1)
    if current.strip() == made:
        return
    if update:
        path.write_text(head + OPTIONS_BEGIN + "\n" + made + "\n" + OPTIONS_END + tail)
        print(f"check_docs: rewrote the options table of {path}")
        return
    problems.add(str(path), "the options table differs from the passes' and runtime's declarations; "
                 "run tests/docs/check_docs.py --update-options (with --pto and --docs) to remake it")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pto", required=True, help="the pto binary")
    parser.add_argument("--docs", required=True, help="the docs folder")
    parser.add_argument("--examples", help="resources/examples (default: beside the docs folder)")
    parser.add_argument("--pto-studio", help="the pto-studio binary (default: beside pto, if there)")
    parser.add_argument("--screenshots", help="scripts/make-screenshots.sh (default: beside the docs folder)")
    parser.add_argument("--pypto-path", help="the folder holding the built pypto package (build/release/python)")
    parser.add_argument("--no-json", action="store_true", help="skip running commands for the JSON check")
    parser.add_argument("--verbose", action="store_true", help="print what was run and the keys checked")
    parser.add_argument("--update-options", action="store_true",
                        help="rewrite project-format.md's options table from the declarations")
    args = parser.parse_args()

    started = time.monotonic()
    docs_dir = Path(args.docs).resolve()
    root = docs_dir.parent
    examples = Path(args.examples).resolve() if args.examples else root / "resources" / "examples"
    script = Path(args.screenshots).resolve() if args.screenshots else root / "scripts" / "make-screenshots.sh"
    studio = args.pto_studio
    if studio is None:
        beside = Path(args.pto).resolve().parent / "pto-studio"
        studio = str(beside) if os.access(beside, os.X_OK) else None

    docs = [Doc(path) for path in sorted(docs_dir.glob("*.md"))]
    cli = next((doc for doc in docs if doc.path.name == "cli.md"), None)
    if cli is None:
        print(f"check_docs: {docs_dir} has no cli.md", file=sys.stderr)
        return 2
    problems = Problems()
    try:
        programs = Programs(args.pto, studio)
    except (OSError, RuntimeError, subprocess.TimeoutExpired) as error:
        print(f"check_docs: cannot read the programs' --help: {error}", file=sys.stderr)
        return 1
    if programs.studio_options is None:
        print("check_docs: no pto-studio given or beside pto: its options are not checked", file=sys.stderr)

    seen = check_options(docs, programs, problems)
    check_options_table(args.pto, docs_dir, problems, args.update_options)
    if not script.exists():
        problems.add(str(script), "the screenshot script does not exist")
        shots = set()
    else:
        shots = screenshot_names(script)
    check_links(docs, shots, problems)
    if args.pypto_path:
        check_pypto(docs, Path(args.pypto_path).resolve(), problems)

    if not args.no_json:
        with tempfile.TemporaryDirectory(prefix="pto-docs-") as work:
            runner = Runner(args.pto, examples, Path(work))
            try:
                runner.run_all()
            except (OSError, RuntimeError, ValueError, KeyError, subprocess.TimeoutExpired) as error:
                problems.add("tests/docs/check_docs.py", f"running the examples for the JSON check failed: {error}")
            else:
                required = check_json(cli, runner, problems)
                if args.verbose:
                    print("\n".join(runner.log))
                    for command, keys in sorted(required.items()):
                        print(f"keys documented for {command}: {', '.join(sorted(keys))}")

    if args.verbose:
        for command, options in sorted(seen.pto.items()):
            print(f"options documented for pto {command}: {', '.join(sorted(options))}")
        print(f"options documented for pto-studio: {', '.join(sorted(seen.studio))}")
        print(f"screenshots the script makes: {', '.join(sorted(shots))}")

    seconds = time.monotonic() - started
    if problems.items:
        for item in problems.items:
            print(item)
        print(f"check_docs: {len(problems.items)} problem(s) in {len(docs)} docs ({seconds:.1f} s)", file=sys.stderr)
        return 1
    print(f"check_docs: {len(docs)} docs match pto and pto-studio ({seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
