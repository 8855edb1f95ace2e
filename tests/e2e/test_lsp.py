"""Diagnostics from real language servers (docs/lsp.md), driven through the
real zero binary and the fake model server, the model calling the tools:

- clangd (Debian's) on a small C project: an edit that breaks a call is
  reported with its line, the fix says the error is gone, the diagnostics
  tool shows the file clean; the lsp tool finds a definition, references,
  hover text and the file's symbols; errors already there before the edit are not
  blamed on it; an error left at the end brings one diagnostics nudge;
- pyright from npm (tests/lsp/package.json) on a small Python project;
- a server that is missing, crashes (restarted on next use), hangs or sends
  garbage never fails the edit: the result says diagnostics were unavailable;
- (the sandbox around servers: test_attack_lsp.py);
- `zero lsp status` lists the servers and starts them with --check;
- a run whose config turns LSP off offers no diagnostics tool.
Tests needing clangd or pyright skip, saying why, when they are missing."""
import json
import os
import shutil
import sys
import time
import unittest

from harness import ZeroTest, main
import lsp_npm

HERE = os.path.dirname(os.path.abspath(__file__))
FAKE_LSP = os.path.join(HERE, "fake_lsp.py")

MAIN_C = "int add(int a, int b) { return a + b; }\nint main(void) { return add(1, 2); }\n"


def edit(path, old, new):
    return {"name": "edit_file", "arguments": {"path": path, "old_string": old, "new_string": new}}


class Lsp(ZeroTest):
    def config(self, lsp):
        d = os.path.join(self.home, ".config", "zero")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "config.json"), "w") as f:
            json.dump({"lsp": lsp}, f)

    def fake_server(self, mode, state=None, **extra):
        """Configures the fake server for *.fk files."""
        srv = {"command": sys.executable or "python3",
               "args": [FAKE_LSP, mode, state or self.work], "filePatterns": ["*.fk"]}
        lsp = {"servers": {"fake": srv}}
        lsp.update(extra)
        self.config(lsp)

    def write(self, name, text):
        with open(os.path.join(self.work, name), "w") as f:
            f.write(text)

    def run_exec(self, *extra, timeout=120):
        r = self.zero("exec", "--permission-mode", "auto", "-o", "stream-json", *extra, "go",
                      timeout=timeout)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r

    def tool_results(self, model):
        """The content of the last tool message of every request after the first."""
        out = []
        for body in model.bodies()[1:]:
            msgs = [m for m in body["messages"] if m["role"] == "tool"]
            out.append(msgs[-1]["content"] if msgs else None)
        return out

    def patient(self):
        """Bounds for a real server: on a loaded machine (CI runs suites side
        by side on 2 CPUs) clangd or pyright may take seconds per edit. These
        tests are about what zero does with the answers; the fake server's
        tests pin the bounds themselves."""
        self.config({"diagnosticsTimeoutMs": 30000, "startupTimeoutMs": 60000})

    def require_clangd(self):
        if not shutil.which("clangd"):
            self.skipTest("clangd is not installed (Debian package clangd)")
        self.patient()

    # ---- clangd -------------------------------------------------------------

    def test_clangd_reports_a_broken_call_and_its_fix(self):
        self.require_clangd()
        self.write("main.c", MAIN_C)
        m = self.serve([
            {"tool_calls": [edit("main.c", "return add(1, 2);", "return add(1, 2, 3);")]},
            {"tool_calls": [edit("main.c", "return add(1, 2, 3);", "return add(1, 2);")]},
            {"tool_calls": [{"name": "diagnostics", "arguments": {"path": "main.c"}}]},
            {"text": "Done."},
        ])
        r = self.run_exec()
        broke, fixed, diag = self.tool_results(m)
        self.assertIn("Successfully edited main.c", broke)
        self.assertIn("clangd reports 1 new error in main.c", broke)
        self.assertIn("main.c:2:", broke)  # the line of the broken call
        self.assertIn("Too many arguments", broke)
        self.assertIn("no errors remain in main.c", fixed)
        self.assertIn("No problems reported by clangd in main.c", diag)
        names = {t["function"]["name"] for t in m.bodies()[0]["tools"]}
        self.assertIn("diagnostics", names)
        # the diagnostics reach the recorded tool result (stream-json) too
        results = [e for e in self.lines(r.stdout) if e["type"] == "tool_result"]
        self.assertIn("Too many arguments", json.dumps(results[0]))

    def test_clangd_navigation(self):
        self.require_clangd()
        self.write("main.c", MAIN_C)
        nav = lambda op, **pos: {"tool_calls": [{"name": "lsp", "arguments": dict(
            operation=op, path="main.c", **pos)}]}
        m = self.serve([
            nav("definition", line=2, column=26),
            nav("references", line=1, column=5),
            nav("hover", line=2, column=26),
            nav("symbols"),
            nav("definition"),
            {"text": "Done."},
        ])
        self.run_exec()
        definition, refs, hover, symbols, bad = self.tool_results(m)
        self.assertEqual(definition.strip(), "main.c:1:5: int add(int a, int b) { return a + b; }")
        self.assertIn("main.c:1:5:", refs)
        self.assertIn("main.c:2:25: int main(void) { return add(1, 2); }", refs)
        self.assertIn("int add(int a, int b)", hover)
        self.assertIn("function add (line 1)", symbols)
        self.assertIn("function main (line 2)", symbols)
        self.assertIn("definition needs line and column", bad)

    def test_existing_errors_are_not_blamed_on_an_edit(self):
        self.require_clangd()
        self.write("main.c", MAIN_C.replace("return add(1, 2);", "return add(1, 2, 3);"))
        m = self.serve([
            {"tool_calls": [edit("main.c", "int add(int a, int b)", "int add(int a, int b) ")]},
            {"text": "Done."},
        ])
        self.run_exec()
        (res,) = self.tool_results(m)
        self.assertIn("Successfully edited", res)
        self.assertNotIn("error", res.split("\n", 1)[1] if "\n" in res else "")
        self.assertEqual(len(m.bodies()), 2, "an error already there must not bring a nudge")

    def test_an_error_left_at_the_end_brings_one_nudge(self):
        self.require_clangd()
        self.write("main.c", MAIN_C)
        m = self.serve([
            {"tool_calls": [edit("main.c", "return add(1, 2);", "return add(1, 2, 3);")]},
            {"text": "Done."},
            {"text": "It is intended."},
        ])
        r = self.run_exec()
        bodies = m.bodies()
        self.assertEqual(len(bodies), 3)
        nudge = bodies[2]["messages"][-1]
        self.assertEqual(nudge["role"], "user")
        self.assertIn("Before you finish", nudge["content"])
        self.assertIn("main.c:2:", nudge["content"])
        codes = [e.get("code") for e in self.lines(r.stdout) if e["type"] == "warning"]
        self.assertIn("diagnostics_nudge", codes)

    def test_no_server_started_when_lsp_is_off(self):
        self.config({"enabled": False})
        self.write("main.c", MAIN_C)
        m = self.serve([
            {"tool_calls": [edit("main.c", "return add(1, 2);", "return add(1, 2, 3);")]},
            {"text": "Done."},
        ])
        self.run_exec()
        (res,) = self.tool_results(m)
        self.assertNotIn("error", res)
        names = {t["function"]["name"] for t in m.bodies()[0]["tools"]}
        self.assertNotIn("diagnostics", names)

    def test_tools_offered_only_where_a_server_covers_a_file(self):
        """A workspace with nothing a server covers pays no tool schemas in
        every request; once an edit starts a server, the tools appear."""
        self.require_clangd()
        self.write("notes.txt", "nothing to check here\n")
        m = self.serve([
            {"tool_calls": [{"name": "write_file",
                             "arguments": {"path": "main.c", "content": MAIN_C}}]},
            {"text": "Done."},
        ])
        self.run_exec()
        first, second = ({t["function"]["name"] for t in b["tools"]} for b in m.bodies())
        self.assertNotIn("diagnostics", first)
        self.assertNotIn("lsp", first)
        self.assertIn("diagnostics", second)

    # ---- pyright ------------------------------------------------------------

    def test_pyright_reports_a_type_error_and_its_fix(self):
        bin_dir = lsp_npm.require_pyright(self)
        self.env["PATH"] = bin_dir + os.pathsep + self.env["PATH"]
        self.patient()
        self.write("app.py", "def add(a: int, b: int) -> int:\n    return a + b\n\nprint(add(1, 2))\n")
        m = self.serve([
            {"tool_calls": [edit("app.py", "print(add(1, 2))", "x: str = add(1, 2)\nprint(x)")]},
            {"tool_calls": [edit("app.py", "x: str = add(1, 2)", "x: int = add(1, 2)")]},
            {"text": "Done."},
        ])
        self.run_exec(timeout=180)
        broke, fixed = self.tool_results(m)
        self.assertIn("pyright reports 1 new error in app.py", broke)
        self.assertIn("app.py:4:", broke)
        self.assertIn('"int" is not assignable to declared type "str"', broke)
        self.assertIn("no errors remain in app.py", fixed)

    # ---- servers that fail ----------------------------------------------------

    def test_missing_server_never_fails_the_edit(self):
        self.config({"servers": {"clangd": {"command": "/nonexistent/clangd"}}})
        self.write("main.c", MAIN_C)
        m = self.serve([
            {"tool_calls": [edit("main.c", "return add(1, 2);", "return add(2, 1);")]},
            {"text": "Done."},
        ])
        self.run_exec()
        (res,) = self.tool_results(m)
        self.assertIn("Successfully edited main.c", res)
        self.assertIn("[diagnostics unavailable for main.c: language server clangd", res)
        with open(os.path.join(self.work, "main.c")) as f:
            self.assertIn("add(2, 1)", f.read())

    def test_crashed_server_is_reported_and_restarted(self):
        state = os.path.join(self.work, "state")
        os.makedirs(state)
        self.fake_server("crash-once", state)
        self.write("a.fk", "one\n")
        m = self.serve([
            {"tool_calls": [edit("a.fk", "one", "one BAD")]},
            {"tool_calls": [edit("a.fk", "one BAD", "two BAD")]},
            {"text": "Done."},
            {"text": "Left on purpose."},
        ])
        self.run_exec()
        crashed, again = self.tool_results(m)[:2]
        self.assertIn("Successfully edited a.fk", crashed)
        self.assertIn("[diagnostics unavailable for a.fk: language server fake", crashed)
        self.assertIn("crashing on purpose", crashed)  # its stderr says why
        self.assertIn("fake reports 1 new error in a.fk", again)
        self.assertIn("a.fk:1:5: error: bad token here [fake]", again)

    def test_hanging_server_is_bounded(self):
        self.fake_server("hang", diagnosticsTimeoutMs=300, startupTimeoutMs=800)
        self.write("a.fk", "one\n")
        m = self.serve([
            {"tool_calls": [edit("a.fk", "one", "one BAD")]},
            {"tool_calls": [edit("a.fk", "one BAD", "two BAD")]},
            {"text": "Done."},
        ])
        t0 = time.monotonic()
        self.run_exec()
        took = time.monotonic() - t0
        first, second = self.tool_results(m)
        self.assertIn("Successfully edited a.fk", first)
        self.assertIn("sent no diagnostics within 800 ms", first)  # cold: the startup bound
        self.assertIn("sent no diagnostics within 300 ms", second)
        self.assertLess(took, 30)

    def test_late_diagnostics_are_waited_for_not_asked_again(self):
        """An edit whose diagnostics come after the bound says so; the
        diagnostics tool and the final check then wait for them rather than
        send the same text again, which a server (clangd, the fake's late
        mode) need not answer: the error is still shown and still nudged."""
        self.fake_server("late", diagnosticsTimeoutMs=1000)
        self.write("a.fk", "one\n")
        m = self.serve([
            {"tool_calls": [edit("a.fk", "one", "one BAD")]},
            {"tool_calls": [{"name": "diagnostics", "arguments": {"path": "a.fk"}}]},
            {"text": "Done."},
            {"text": "It is intended."},
        ])
        self.run_exec()
        edited, shown = self.tool_results(m)[:2]
        self.assertIn("Successfully edited a.fk", edited)
        self.assertIn("sent no diagnostics within 1000 ms", edited)
        self.assertIn("a.fk:1:5: error: bad token here", shown)
        bodies = m.bodies()
        self.assertEqual(len(bodies), 4, "the error left at the end brings the nudge")
        nudge = bodies[3]["messages"][-1]["content"]
        self.assertIn("Before you finish", nudge)
        self.assertIn("a.fk:1:5: error: bad token here", nudge)

    def test_garbage_from_server_is_reported(self):
        self.fake_server("garbage")
        self.write("a.fk", "one\n")
        m = self.serve([{"tool_calls": [edit("a.fk", "one", "one BAD")]}, {"text": "Done."}])
        self.run_exec()
        (res,) = self.tool_results(m)
        self.assertIn("Successfully edited a.fk", res)
        self.assertIn("sent a malformed message", res)

    def test_a_request_while_zero_writes_a_big_file_never_splits_the_frame(self):
        """The server asks zero something while zero is blocked writing a
        big didOpen: zero's answer follows the frame instead of landing in
        the middle of it (regression: it was written mid-frame)."""
        self.fake_server("asks")
        filler = "".join("line %d fine\n" % i for i in range(20000))  # ~300 KB
        self.write("a.fk", filler + "one\n")
        m = self.serve([{"tool_calls": [edit("a.fk", "one", "one BAD")]}, {"text": "Done."},
                        {"text": "Left on purpose."}])
        self.run_exec()
        res = self.tool_results(m)[0]
        self.assertIn("Successfully edited a.fk", res)
        self.assertNotIn("unavailable", res)
        self.assertIn("fake reports 1 new error in a.fk", res)

    def test_warnings_and_old_errors_are_not_reported_after_an_edit(self):
        self.fake_server("normal")
        self.write("a.fk", "BAD old\nfine\n")
        m = self.serve([
            {"tool_calls": [edit("a.fk", "fine", "fine WARN")]},
            {"tool_calls": [{"name": "diagnostics", "arguments": {"path": "a.fk"}}]},
            {"text": "Done."},
        ])
        self.run_exec()
        res, diag = self.tool_results(m)
        self.assertNotIn("new error", res)
        self.assertIn("fake reports 2 problems in a.fk", diag)
        self.assertIn("a.fk:1:1: error: bad token here", diag)
        self.assertIn("a.fk:2:6: warning: suspicious", diag)
        self.assertEqual(len(m.bodies()), 3, "no nudge for an error the run did not make")

    # ---- zero lsp status ------------------------------------------------------

    def test_status_lists_and_checks_servers(self):
        self.fake_server("normal")
        r = self.zero("lsp", "status")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"fake\s+not started")
        self.assertIn("*.fk", r.stdout)
        self.assertRegex(r.stdout, r"gopls\s+(missing|not started)")
        r = self.zero("lsp", "status", "--check")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"fake\s+running")
        self.assertIn("by fake-lsp", r.stdout)

    def test_status_reports_a_bad_config(self):
        self.config({"servers": {"x": {"command": "x"}}})
        r = self.zero("lsp", "status")
        self.assertEqual(r.returncode, 2)
        self.assertIn("needs \"filePatterns\"", r.stderr)


if __name__ == "__main__":
    main()
