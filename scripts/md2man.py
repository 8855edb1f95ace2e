#!/usr/bin/env python3
"""md2man.py — a Markdown page of docs/ as a roff manual page.

Usage: md2man.py SOURCE.md NAME SECTION "one-line summary" [VERSION] > NAME.SECTION

Reads the subset docs/ is written in: a `#` title (dropped: the page has its
own NAME), `##` / `###` headings, paragraphs, `-` lists, fenced code blocks,
pipe tables (as tagged paragraphs, the first cell as the tag) and the inline
forms `code`, **bold**, *emphasis* and [text](link) (the link's text only).
The build runs it for zero-config(5) from docs/config.md, so the manual and
the documentation cannot drift apart."""
import re
import sys


def escape(text):
    """Roff-escapes plain text: backslashes and dashes."""
    return text.replace("\\", "\\e").replace("-", "\\-")


def inline(text):
    """Markdown inline markup to roff fonts; the rest escaped."""
    out = []
    pos = 0
    pattern = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|\[([^\]]+)\]\([^)]*\)")
    for m in pattern.finditer(text):
        out.append(escape(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append("\\fB" + escape(m.group(1)) + "\\fR")
        elif m.group(2) is not None:
            out.append("\\fB" + escape(m.group(2)) + "\\fR")
        elif m.group(3) is not None:
            out.append("\\fI" + escape(m.group(3)) + "\\fR")
        else:
            out.append(inline(m.group(4)))
        pos = m.end()
    out.append(escape(text[pos:]))
    return guard("".join(out))


def guard(line):
    """A line starting with a control character is protected."""
    return "\\&" + line if line[:1] in (".", "'") else line


def table_cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def convert(lines, name, section, summary, version):
    out = ['.TH "%s" "%s" "" "zero %s" "zero manual"' % (name.upper(), section, version),
           ".SH NAME", "%s \\- %s" % (escape(name), escape(summary)), ".SH DESCRIPTION"]
    para = []
    i = 0

    def flush():
        if para:
            out.append(".PP")
            out.append(inline(" ".join(para)))
            para.clear()

    while i < len(lines):
        line = lines[i].rstrip("\n")
        if line.startswith("```"):
            flush()
            out += [".PP", ".RS 4", ".nf"]
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                out.append(guard(escape(lines[i].rstrip("\n"))))
                i += 1
            out += [".fi", ".RE"]
        elif line.startswith("# "):
            flush()
        elif line.startswith("## "):
            flush()
            out.append(".SH " + escape(line[3:].strip().upper()))
        elif line.startswith("### "):
            flush()
            out.append(".SS " + escape(line[4:].strip()))
        elif line.startswith("|"):
            flush()
            rows = []
            while i < len(lines) and lines[i].startswith("|"):
                cells = table_cells(lines[i])
                if not all(re.fullmatch(r":?-+:?", c) for c in cells if c):
                    rows.append(cells)
                i += 1
            header, body = (rows[0], rows[1:]) if len(rows) > 1 else ([], rows)
            for cells in body:
                out.append(".TP")
                out.append(inline(cells[0]))
                rest = ["%s: %s" % (h, c) if h else c for h, c in zip(header[1:] or [""] * len(cells), cells[1:]) if c]
                out.append(inline("; ".join(rest)))
            continue
        elif re.match(r"\s*[-*] ", line):
            flush()
            item = [re.sub(r"^\s*[-*] ", "", line)]
            while i + 1 < len(lines) and lines[i + 1].startswith("  ") and lines[i + 1].strip() \
                    and not re.match(r"\s*[-*] ", lines[i + 1]):
                i += 1
                item.append(lines[i].strip())
            out.append(".IP \\(bu 2")
            out.append(inline(" ".join(item)))
        elif not line.strip():
            flush()
        else:
            para.append(line.strip())
        i += 1
    flush()
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) not in (5, 6):
        sys.exit(__doc__)
    source, name, section, summary = sys.argv[1:5]
    version = sys.argv[5] if len(sys.argv) == 6 else "dev"
    with open(source, encoding="utf-8") as f:
        lines = f.readlines()
    sys.stdout.write(convert(lines, name, section, summary, version))


if __name__ == "__main__":
    main()
