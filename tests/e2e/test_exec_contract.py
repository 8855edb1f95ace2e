"""zero exec as a CI script or an SDK client drives it: every output line of
-o stream-json is checked against docs/stream-json.md, flags as Go zero spells
them, exit codes. Regression tests from the QA pass over issues 2 and 3."""
import base64
import json
import os
import re
import subprocess
import time

from harness import ZERO_BIN, ZeroTest, main

RUN_ID = re.compile(r"^run_\d{14}_[0-9a-f]{6}$")


PERMISSION_TYPES = ("permission_request", "permission_decision", "permission")


class ExecContract(ZeroTest):
    def stream(self, r):
        evs = self.lines(r.stdout)
        self.assert_stream_json_valid(evs)
        for ev in evs:
            self.assertRegex(ev["runId"], RUN_ID)
            self.check_go_fields(ev)
        return evs

    def check_go_fields(self, ev):
        """The fields Go zero's schema v2 always sends for a type, with their
        JSON types (a client written against Go zero reads them)."""
        t = ev["type"]
        if t == "tool_result":
            self.assertIsInstance(ev.get("truncated"), bool, ev)
            self.assertIn(ev.get("status"), ("ok", "error"), ev)
            if "changedFiles" in ev:
                self.assertIsInstance(ev["changedFiles"], list, ev)
                self.assertTrue(ev["changedFiles"], ev)
                for f in ev["changedFiles"]:
                    self.assertIsInstance(f, str, ev)
        elif t in PERMISSION_TYPES:
            self.assertIsInstance(ev.get("permissionGranted"), bool, ev)
            for key in ("id", "name", "action", "permissionMode", "sideEffect", "reason"):
                self.assertIsInstance(ev.get(key), str, (key, ev))
            for key in ("sessionId", "permission", "autonomy", "decisionReason"):
                if key in ev:
                    self.assertIsInstance(ev[key], str, (key, ev))
            risk = ev.get("risk")
            self.assertIsInstance(risk, dict, ev)
            self.assertIn(risk.get("level"), ("low", "medium", "high", "critical"), ev)
            self.assertIsInstance(risk.get("categories"), list, ev)
            self.assertIsInstance(risk.get("reason"), str, ev)
            if "grantMatched" in ev:
                self.assertIs(ev["grantMatched"], True, ev)
            for key in ("block", "grant"):
                if key in ev:
                    self.assertIsInstance(ev[key], dict, (key, ev))
            if t == "permission_request":
                self.assertEqual(ev["action"], "prompt", ev)
            if t == "permission_decision":
                self.assertIn(ev["action"], ("allow", "deny", "cancel"), ev)
        elif t == "checkpoint":
            cp = ev.get("checkpoint")
            self.assertIsInstance(cp, dict, ev)
            self.assertIsInstance(cp.get("sequence"), int, ev)
            self.assertGreater(cp["sequence"], 0, ev)
            self.assertIsInstance(cp.get("tool"), str, ev)
            self.assertIsInstance(cp.get("files"), list, ev)
            for f in cp["files"]:
                self.assertIsInstance(f, str, ev)

    def test_checkpoint_and_changed_files_as_go_zero_sends_them(self):
        # A write: tool_call, permission_decision, checkpoint (the snapshot
        # taken just before the file changes), tool_result with changedFiles.
        with open(os.path.join(self.work, "old.txt"), "w") as f:
            f.write("before\n")
        self.serve([
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "old.txt"}}]},
            {"tool_calls": [{"name": "write_file", "arguments": {
                "path": "old.txt", "content": "after\n", "overwrite": True}}]},
            {"tool_calls": [{"name": "apply_patch", "arguments": {"patch":
                "*** Begin Patch\n*** Add File: new1.txt\n+one\n*** Add File: new2.txt\n+two\n"
                "*** End Patch\n"}}]},
            {"text": "Done."},
        ])
        r = self.zero("exec", "-o", "stream-json", "change it")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        evs = self.stream(r)
        sid = evs[0]["sessionId"]
        types = [e["type"] for e in evs]
        i = [k for k, e in enumerate(evs)
             if e["type"] == "tool_call" and e["name"] == "write_file"][0]
        self.assertEqual(types[i:i + 4],
                         ["tool_call", "permission_decision", "checkpoint", "tool_result"], types)
        cp = evs[i + 2]["checkpoint"]
        old = os.path.realpath(os.path.join(self.work, "old.txt"))
        self.assertEqual(cp["tool"], "write_file")
        self.assertEqual(cp["files"], [old])
        res = evs[i + 3]
        self.assertEqual(res["status"], "ok", res)
        self.assertEqual(res["changedFiles"], [old])
        self.assertIs(res["truncated"], False)
        # the sequence is the session's own event (what rewind takes)
        with open(os.path.join(self.sessions_dir(), sid, "events.jsonl")) as f:
            recs = [json.loads(l) for l in f if l.strip()]
        by_seq = {rec["sequence"]: rec for rec in recs}
        self.assertEqual(by_seq[cp["sequence"]]["type"], "session_checkpoint")
        self.assertEqual(by_seq[cp["sequence"]]["payload"]["files"][0]["path"], old)
        # apply_patch: one checkpoint per file, both files in changedFiles
        cps = [e for e in evs if e["type"] == "checkpoint"]
        self.assertEqual([c["checkpoint"]["tool"] for c in cps],
                         ["write_file", "apply_patch", "apply_patch"])
        patched = [e for e in evs if e["type"] == "tool_result" and e["name"] == "apply_patch"][0]
        self.assertEqual(sorted(patched["changedFiles"]),
                         sorted(os.path.realpath(os.path.join(self.work, n))
                                for n in ("new1.txt", "new2.txt")))
        self.assertLess(cps[0]["checkpoint"]["sequence"], cps[1]["checkpoint"]["sequence"])
        # a read changes nothing: no changedFiles, still truncated
        read = [e for e in evs if e["type"] == "tool_result" and e["name"] == "read_file"][0]
        self.assertNotIn("changedFiles", read)
        self.assertIs(read["truncated"], False)
        # permission events carry Go zero's fields
        perms = [e for e in evs if e["type"] == "permission_decision"]
        self.assertEqual([p["name"] for p in perms], ["read_file", "write_file", "apply_patch"])
        for p in perms:
            self.assertEqual(p["sessionId"], sid)
            self.assertEqual(p["autonomy"], "low")
            self.assertEqual(p["permission"], "allow")
            self.assertEqual(p["decisionReason"], "allowed")
            self.assertIs(p["permissionGranted"], True)
        self.assertEqual(perms[1]["risk"]["level"], "medium")
        self.assertEqual(perms[1]["risk"]["categories"], ["write"])
        self.assertEqual(perms[1]["risk"]["reason"], "medium risk: write")
        self.assertEqual(perms[0]["risk"], {"level": "low", "categories": ["read"],
                                            "reason": "low risk: read"})

    def test_failed_write_reports_no_changed_files(self):
        self.serve([
            {"tool_calls": [{"name": "edit_file", "arguments": {
                "path": "missing.txt", "old_string": "a", "new_string": "b"}}]},
            {"text": "ok"},
        ])
        r = self.zero("exec", "-o", "stream-json", "edit")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        evs = self.stream(r)
        res = [e for e in evs if e["type"] == "tool_result"][0]
        self.assertEqual(res["status"], "error", res)
        self.assertNotIn("changedFiles", res)

    def test_denied_command_permission_fields(self):
        # A destructive command headless: denied, with risk critical and the
        # autonomy the run was given.
        self.serve([
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "rm -rf build"}}]},
            {"text": "ok"},
        ])
        r = self.zero("exec", "-o", "stream-json", "--auto", "medium", "clean")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        evs = self.stream(r)
        d = [e for e in evs if e["type"] == "permission_decision"][0]
        self.assertEqual(d["action"], "deny", d)
        self.assertIs(d["permissionGranted"], False)
        self.assertEqual(d["autonomy"], "medium")
        self.assertEqual(d["risk"]["level"], "critical", d)
        self.assertIn("destructive", d["risk"]["categories"])
        self.assertIn("shell", d["risk"]["categories"])
        self.assertIn("block", d)
        self.assertEqual(d["decisionReason"], d["code"])
        self.assertNotIn("checkpoint", [e["type"] for e in evs])

    def test_list_tools_stream_json_is_a_whole_run(self):
        # Every stream-json output ends with run_end, --list-tools included
        # (Go zero: run_start, final with the listing, run_end).
        r = self.zero("exec", "--list-tools", "-o", "stream-json",
                      "--enabled-tools", "read_file,glob")
        self.assertEqual(r.returncode, 0, r.stderr)
        evs = self.stream(r)
        self.assertEqual([e["type"] for e in evs], ["run_start", "final", "run_end"])
        self.assertEqual(evs[0]["cwd"], self.work)
        text = evs[1]["text"]
        self.assertTrue(text.startswith("Tools visible to model:\n"), text)
        self.assertIn("\n  read_file [read/allow] - ", text)
        self.assertIn("\n  glob [read/allow] - ", text)
        self.assertNotIn("write_file", text)
        self.assertEqual(evs[2]["status"], "success")
        self.assertEqual(evs[2]["exitCode"], 0)
        # The same listing as -o text.
        t = self.zero("exec", "--list-tools", "--enabled-tools", "read_file,glob")
        self.assertEqual(t.stdout, text)
        # One line per tool, even for a description written on several lines.
        t = self.zero("exec", "--list-tools")
        lines = t.stdout.splitlines()
        self.assertEqual(lines[0], "Tools visible to model:")
        for line in lines[1:]:
            self.assertRegex(line, r"^  [a-z_]+ \[[a-z]+/[a-z]+\] - \S")
        self.assertIn("apply_patch", t.stdout)

    def test_prompt_flag_with_equals(self):
        # Go zero accepts -p=TEXT as well as -p TEXT and --prompt=TEXT.
        self.serve([{"text": "ok"}])
        r = self.zero("exec", "-o", "json", "-p=explain main.c")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.model.bodies()[0]["messages"][-1],
                         {"role": "user", "content": "explain main.c"})

    def test_out_of_quota_429_is_not_retried(self):
        # A rate limit is worth waiting for; an account out of credit is not.
        quota = {"status": 429, "error": {
            "message": "You exceeded your current quota, please check your plan and billing "
                       "details.", "type": "insufficient_quota", "param": None,
            "code": "insufficient_quota"}}
        self.serve([quota, quota, quota, {"text": "never"}])
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertEqual(r.returncode, 3, r.stdout)
        evs = self.stream(r)
        self.assertEqual(len(self.model.bodies()), 1)
        self.assertEqual([e["type"] for e in evs], ["run_start", "error", "run_end"])
        self.assertEqual(evs[1]["code"], "provider_error")
        self.assertIn("HTTP 429", evs[1]["message"])
        self.assertIn("no quota or credit left", evs[1]["message"])
        self.assertIn("You exceeded your current quota", evs[1]["message"])
        self.assertEqual(evs[2], dict(evs[2], status="error", exitCode=3))

    def test_local_server_alone_is_enough(self):
        # OPENAI_BASE_URL at a local server, no key, no model: zero asks the
        # server for its models and uses the first, with a warning.
        self.serve([{"text": "hi from the local model"}])
        del self.env["OPENAI_MODEL"]
        del self.env["OPENAI_API_KEY"]
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        evs = self.stream(r)
        self.assertEqual(evs[0]["model"], "fake-model")
        warn = [e for e in evs if e["type"] == "warning"]
        self.assertEqual(len(warn), 1, evs)
        self.assertIn('using "fake-model"', warn[0]["message"])
        self.assertIn("set OPENAI_MODEL", warn[0]["message"])
        self.assertEqual(self.model.bodies()[0]["model"], "fake-model")
        self.assertEqual(evs[-1]["exitCode"], 0)
        # zero doctor agrees with zero exec.
        r = self.zero("doctor", "--json")
        self.assertEqual(r.returncode, 0, r.stdout)
        rows = {c["check"]: c for c in json.loads(r.stdout)["checks"]}
        self.assertEqual(rows["provider"]["status"], "ok")
        self.assertEqual(rows["model"]["status"], "warn")
        self.assertIn('using "fake-model"', rows["model"]["detail"])
        # A local server that does not answer still gets the clear error.
        self.env["OPENAI_BASE_URL"] = "http://127.0.0.1:9/v1"
        r = self.zero("exec", "hi")
        self.assertEqual(r.returncode, 3)
        self.assertIn("needs a model: set OPENAI_MODEL", r.stderr)

    PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5"
           "ErkJggg==")

    def test_stream_json_input_images(self):
        # Go zero's message shape: images ride with the user message, reach
        # the model, and come back on --resume.
        self.serve([{"text": "a red pixel"}, {"text": "still a pixel"}])
        line = json.dumps({"schemaVersion": 2, "type": "message", "role": "user",
                           "content": "what is in this image?",
                           "images": [{"mediaType": "image/png", "data": self.PNG}]})
        r = self.zero("exec", "-i", "stream-json", "-o", "stream-json", input=line + "\n")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.stream(r)
        url = "data:image/png;base64," + self.PNG

        def image_urls(body):
            user = [m for m in body["messages"] if m["role"] == "user"][0]
            self.assertIsInstance(user["content"], list, user)
            texts = [p["text"] for p in user["content"] if p["type"] == "text"]
            self.assertEqual(texts, ["what is in this image?"])
            return [p["image_url"]["url"] for p in user["content"] if p["type"] == "image_url"]

        self.assertEqual(image_urls(self.model.bodies()[0]), [url])
        r = self.zero("exec", "--resume", "-o", "json", "and now?")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(image_urls(self.model.bodies()[1]), [url])
        # A bad image is a usage error naming the line.
        bad = json.dumps({"schemaVersion": 2, "type": "message", "role": "user", "content": "x",
                          "images": [{"mediaType": "image/bmp", "data": self.PNG}]})
        r = self.zero("exec", "-i", "stream-json", "-o", "stream-json",
                      input="\n" + bad + "\n")
        self.assertEqual(r.returncode, 2)
        evs = self.stream(r)
        self.assertEqual(evs[0]["code"], "usage_error")
        self.assertIn("line 2: image 1 has an unsupported image media type \"image/bmp\"",
                      evs[0]["message"])

    def test_gemini_429_waits_for_the_retry_delay_in_its_body(self):
        # Gemini says when to retry in the error body (google.rpc.RetryInfo),
        # not in a Retry-After header; zero waits that long.
        busy = {"status": 429, "error": {
            "code": 429, "message": "You exceeded your current quota, please retry in 1s.",
            "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.Help", "links": []},
                        {"@type": "type.googleapis.com/google.rpc.RetryInfo",
                         "retryDelay": "1s"}]}}
        self.serve([busy, {"text": "after the wait"}])
        for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"):
            del self.env[k]
        self.env.update(GEMINI_BASE_URL=self.model.base_url[:-len("/v1")],
                        GEMINI_API_KEY="test-gemini-key", GEMINI_MODEL="gemini-2.5-flash")
        t0 = time.monotonic()
        r = self.zero("exec", "-o", "stream-json", "hi")
        waited = time.monotonic() - t0
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        evs = self.stream(r)
        warn = [e for e in evs if e["type"] == "warning"]
        self.assertEqual(len(warn), 1, evs)
        self.assertIn("HTTP 429", warn[0]["message"])
        self.assertIn("retrying (attempt 2) in 1.0 s", warn[0]["message"])
        self.assertGreaterEqual(waited, 0.9)
        self.assertEqual(evs[-2]["text"], "after the wait")
        self.assertEqual(len(self.model.bodies()), 2)

    def test_oversized_stream_event_is_a_provider_error(self):
        # An event past the 16 MiB cap is the endpoint's fault: exit 3 and
        # provider_error naming the provider, not an internal error (exit 1).
        chunk = json.dumps({"id": "c", "object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": {"content": "x" * (17 << 20)}}]})
        self.serve([{"raw_sse": "data: " + chunk + "\n\ndata: [DONE]\n\n"}])
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertEqual(r.returncode, 3, r.stdout[-500:])
        evs = self.stream(r)
        err = [e for e in evs if e["type"] == "error"]
        self.assertEqual(err[0]["code"], "provider_error")
        self.assertIn("the stream from openai failed", err[0]["message"])
        self.assertIn("16 MiB per-event limit", err[0]["message"])
        self.assertEqual(evs[-1]["exitCode"], 3)
        self.assertEqual(evs[-1]["status"], "error")

    def test_answer_cut_at_the_output_limit_is_said(self):
        # finish_reason "length": the run ends, but a CI log must show that
        # the answer is not whole.
        self.serve([{"text": "The first half of", "finish_reason": "length"}])
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertEqual(r.returncode, 0, r.stderr)
        evs = self.stream(r)
        warn = [e for e in evs if e["type"] == "warning"]
        self.assertEqual(len(warn), 1, evs)
        self.assertIn("cut off", warn[0]["message"])
        self.assertIn("output token limit", warn[0]["message"])
        self.assertEqual(evs[-2], dict(evs[-2], type="final", text="The first half of"))
        # A normal stop says nothing.
        self.serve([{"text": "whole"}])
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertEqual([e for e in self.stream(r) if e["type"] == "warning"], [])

    def test_image_flag(self):
        # Go zero's --image PATH (repeatable): the file, recognised by its
        # bytes, goes with the prompt.
        with open(os.path.join(self.work, "shot.png"), "wb") as f:
            f.write(base64.b64decode(self.PNG))
        with open(os.path.join(self.work, "notes.txt"), "w") as f:
            f.write("not an image\n")
        self.serve([{"text": "a pixel"}])
        r = self.zero("exec", "-o", "json", "--image", "shot.png", "describe it")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        user = [m for m in self.model.bodies()[0]["messages"] if m["role"] == "user"][0]
        self.assertIn({"type": "image_url",
                       "image_url": {"url": "data:image/png;base64," + self.PNG}},
                      user["content"])
        r = self.zero("exec", "-o", "stream-json", "--image", "notes.txt", "describe it")
        self.assertEqual(r.returncode, 2)
        evs = self.stream(r)
        self.assertEqual(evs[0]["code"], "usage_error")
        self.assertIn("--image notes.txt is not a PNG, JPEG, GIF or WebP image",
                      evs[0]["message"])
        r = self.zero("exec", "--image", "missing.png", "describe it")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--image missing.png", r.stderr)

    def use_protocol(self, proto):
        """Points zero at the fake server speaking proto (chat, responses,
        anthropic, gemini)."""
        root = self.model.base_url[:-len("/v1")]
        for fam in ("OPENAI", "ANTHROPIC", "GEMINI"):
            for k in ("_BASE_URL", "_API_KEY", "_MODEL"):
                self.env.pop(fam + k, None)
        cfg = os.path.join(self.env["XDG_CONFIG_HOME"], "zero")
        os.makedirs(cfg, exist_ok=True)
        if os.path.exists(os.path.join(cfg, "config.json")):
            os.unlink(os.path.join(cfg, "config.json"))
        if proto in ("chat", "responses"):
            with open(os.path.join(cfg, "config.json"), "w") as f:
                json.dump({"providers": [{"name": "local", "provider_kind": "openai-compatible",
                                          "baseURL": self.model.base_url, "wireApi": proto,
                                          "model": "gpt-5-mini"}]}, f)
        elif proto == "anthropic":
            self.env.update(ANTHROPIC_BASE_URL=root, ANTHROPIC_API_KEY="k",
                            ANTHROPIC_MODEL="claude-sonnet-4-5")
        else:
            self.env.update(GEMINI_BASE_URL=root, GEMINI_API_KEY="k",
                            GEMINI_MODEL="gemini-2.5-flash")

    def test_filtered_answer_is_said_on_every_protocol(self):
        # The provider's own filter stopped the answer: a warning, on each
        # protocol in its own words.
        cases = [("chat", "content_filter", "content_filter"),
                 ("responses", "content_filter", "content_filter"),
                 ("anthropic", "refusal", "refusal"),
                 ("gemini", "SAFETY", "safety"),
                 ("gemini", "length", "length")]
        for proto, reason, said in cases:
            with self.subTest(proto=proto, reason=reason):
                self.serve([{"text": "partial", "finish_reason": reason}])
                self.use_protocol(proto)
                r = self.zero("exec", "-o", "stream-json", "hi")
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                warn = [e["message"] for e in self.stream(r) if e["type"] == "warning"]
                self.assertEqual(len(warn), 1, warn)
                self.assertIn('finish reason "%s"' % said, warn[0])

    def test_bad_idle_timeout_is_a_usage_error(self):
        # Like ZERO_MAX_TURNS: a value zero cannot read is said, not ignored.
        self.serve([{"text": "ok"}, {"text": "ok"}])
        self.env["ZERO_STREAM_IDLE_TIMEOUT"] = "5 minutes"
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertEqual(r.returncode, 2)
        evs = self.stream(r)
        self.assertEqual([e["type"] for e in evs], ["error", "run_end"])
        self.assertIn('ZERO_STREAM_IDLE_TIMEOUT must be a duration', evs[0]["message"])
        self.assertIn('"5 minutes"', evs[0]["message"])
        self.assertEqual(self.model.bodies(), [])
        for good in ("300", "90s"):
            self.env["ZERO_STREAM_IDLE_TIMEOUT"] = good
            r = self.zero("exec", "-o", "json", "hi")
            self.assertEqual(r.returncode, 0, (good, r.stdout, r.stderr))

    def test_usage_json_cost_is_a_plain_number(self):
        # 600 uncached × $0.25/M + 400 cached × $0.025/M + 100 × $2/M.
        self.serve([{"text": "ok", "usage": {"prompt_tokens": 1000, "completion_tokens": 100,
                                             "cached_tokens": 400}}])
        r = self.zero("exec", "-o", "json", "-m", "gpt-5-mini", "hi")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.zero("usage", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('"costUsd": 0.00036\n', r.stdout)  # not 0.00036000000000000002
        self.assertAlmostEqual(json.loads(r.stdout)["total"]["costUsd"], 0.00036, places=12)

    def test_init_session_id(self):
        # Go zero's --init-session-id: a CI script names the session up front.
        self.serve([{"text": "one"}, {"text": "two"}])
        r = self.zero("exec", "-o", "stream-json", "--init-session-id", "ci-job-7", "first")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(self.stream(r)[0]["sessionId"], "ci-job-7")
        self.assertEqual(self.session_ids(), ["ci-job-7"])
        # Taken: a usage error; the session is untouched.
        r = self.zero("exec", "-o", "stream-json", "--init-session-id", "ci-job-7", "again")
        self.assertEqual(r.returncode, 2)
        evs = self.stream(r)
        self.assertEqual(evs[0]["code"], "usage_error")
        self.assertIn("ci-job-7 already exists", evs[0]["message"])
        # Malformed: a usage error naming the rule.
        r = self.zero("exec", "--init-session-id", "../x", "again")
        self.assertEqual(r.returncode, 2)
        self.assertIn("invalid session id", r.stderr)
        r = self.zero("exec", "-o", "json", "--resume", "ci-job-7", "again")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["sessionId"], "ci-job-7")
        self.assertEqual([m["content"] for m in self.model.bodies()[-1]["messages"][1:]],
                         ["first", "one", "again"])

    def test_plan_flag(self):
        self.serve([{"tool_calls": [{"name": "write_file",
                                     "arguments": {"path": "x.txt", "content": "y"}}]},
                    {"text": "ok"}])
        r = self.zero("exec", "-o", "stream-json", "--plan", "write x")
        self.assertEqual(r.returncode, 0, r.stderr)
        dec = [e for e in self.stream(r) if e["type"] == "permission_decision"]
        self.assertEqual([(d["action"], d["code"], d["permissionMode"]) for d in dec],
                         [("deny", "plan_mode", "plan")])
        self.assertFalse(os.path.exists(os.path.join(self.work, "x.txt")))

    def test_gemini_accepts_the_tool_declarations(self):
        # Gemini refuses an OBJECT schema without properties (exec_command's
        # free-form additional_permissions was one): the fake server checks
        # the declarations as the real API does.
        self.serve([{"tool_calls": [{"name": "list_directory", "arguments": {}}]},
                    {"text": "done"}])
        self.use_protocol("gemini")
        r = self.zero("exec", "-o", "stream-json", "look around")
        self.assertEqual(r.returncode, 0, r.stdout[-600:] + r.stderr)
        self.assertEqual(self.stream(r)[-2]["text"], "done")
        decls = self.model.bodies()[0]["tools"][0]["functionDeclarations"]
        by_name = {d["name"]: d for d in decls}
        self.assertIn("exec_command", by_name)
        self.assertIn("cmd", by_name["exec_command"]["parameters"]["properties"])
        self.assertNotIn("additional_permissions",
                         by_name["exec_command"]["parameters"]["properties"])

    def test_standing_reasoning_effort_skips_models_without_it(self):
        # ZERO_REASONING_EFFORT=high set once must not break every request to a
        # model without reasoning control (the real APIs refuse the field).
        self.serve([{"text": "ok"}, {"text": "ok"}], model="gpt-4o-mini")
        self.env["ZERO_REASONING_EFFORT"] = "high"
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        warn = [e["message"] for e in self.stream(r) if e["type"] == "warning"]
        self.assertEqual(len(warn), 1, warn)
        self.assertIn('reasoning effort "high" (ZERO_REASONING_EFFORT) is not used with model '
                      'gpt-4o-mini', warn[0])
        self.assertNotIn("reasoning_effort", self.model.bodies()[0])
        # A reasoning model still gets it.
        self.env["OPENAI_MODEL"] = "o3-mini"
        r = self.zero("exec", "-o", "json", "hi")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.model.bodies()[1]["reasoning_effort"], "high")
        self.assertEqual(json.loads(r.stdout)["warnings"], [])

    def test_web_page_instead_of_a_stream(self):
        # A proxy or a web server at the wrong URL answers 200 with HTML: no
        # retries, and an error that says what came back.
        page = {"raw_sse": "\n<!DOCTYPE html><html><body>Welcome to nginx!</body></html>"}
        self.serve([page] * 5)
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertEqual(r.returncode, 3)
        evs = self.stream(r)
        self.assertEqual([e["type"] for e in evs], ["run_start", "error", "run_end"])
        self.assertIn("with a web page instead of an event stream", evs[1]["message"])
        self.assertIn("Welcome to nginx!", evs[1]["message"])
        self.assertIn("check the base URL", evs[1]["message"])
        self.assertEqual(len(self.model.bodies()), 1)

    def test_an_echoed_key_is_never_shown_or_recorded(self):
        key = "sk-proj-QAtestKEY0123456789abcdefXYZ"
        self.serve([{"status": 401, "error": {"message": "Incorrect API key provided: " + key,
                                              "type": "invalid_request_error"}},
                    {"text": "", "stream_error": "key " + key + " is disabled"},
                    {"text": "seen", "stream_error": "key " + key + " is disabled"}])
        self.env["OPENAI_API_KEY"] = key
        for fmt in ("stream-json", "text"):
            r = self.zero("exec", "-o", fmt, "hi")
            self.assertEqual(r.returncode, 3)
            self.assertNotIn(key, r.stdout + r.stderr)
            self.assertIn("[REDACTED]", r.stdout + r.stderr)
        for sid in self.session_ids():
            with open(os.path.join(self.sessions_dir(), sid, "events.jsonl")) as f:
                self.assertNotIn(key, f.read())

    def test_unwritable_session_store_says_what_to_do(self):
        self.serve([{"text": "ok"}])
        blocker = os.path.join(self.tmp, "not-a-dir")
        with open(blocker, "w") as f:
            f.write("x")
        self.env["XDG_DATA_HOME"] = blocker  # a file: nothing can be created under it
        r = self.zero("exec", "-o", "stream-json", "hi")
        self.assertEqual(r.returncode, 1)
        evs = self.stream(r)
        self.assertEqual(evs[0]["code"], "internal_error")
        self.assertIn("cannot create a session in " + blocker, evs[0]["message"])
        self.assertIn("XDG_DATA_HOME", evs[0]["message"])

    def test_every_provider_command_answers_help(self):
        # "Every command and subcommand answers --help with its flags and an
        # example" — exit 0, on stdout.
        for words in (["exec"], ["providers"], ["providers", "list"], ["providers", "add"],
                      ["providers", "add", "x", "--preset", "ollama"], ["providers", "use"],
                      ["providers", "remove"], ["providers", "rename"], ["providers", "detect"],
                      ["models"], ["models", "list"], ["usage"], ["doctor"], ["setup"]):
            with self.subTest(words=words):
                r = self.zero(*(words + ["--help"]))
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertIn("Usage: zero " + words[0], r.stdout)
                self.assertIn("--help", r.stdout)
                self.assertIn("Example", r.stdout)
        # --help did not add anything.
        r = self.zero("providers", "list", "--json")
        self.assertEqual(json.loads(r.stdout), [])
        # Unknown flags are still errors.
        r = self.zero("providers", "list", "--bogus")
        self.assertEqual(r.returncode, 2)
        self.assertIn('unknown argument "--bogus"', r.stderr)
        # A flag missing its value says so.
        for words, said in ((["models", "list", "--provider"], "--provider needs a value"),
                            (["usage", "--session"], "--session needs a value")):
            r = self.zero(*words)
            self.assertEqual(r.returncode, 2)
            self.assertIn(said, r.stderr)

    def test_prompt_that_is_not_utf8_still_reaches_the_model(self):
        # A Latin-1 prompt on stdin: the JSON request used to lose the whole
        # content; now the bad byte becomes U+FFFD and a warning says so.
        self.serve([{"text": "ok"}])
        r = subprocess.run([ZERO_BIN, "exec", "-o", "stream-json"], input=b"caf\xe9 au lait\n",
                           capture_output=True, env=self.env, cwd=self.work, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        evs = self.stream(subprocess.CompletedProcess([], 0, r.stdout.decode(), ""))
        warn = [e["message"] for e in evs if e["type"] == "warning"]
        self.assertEqual(len(warn), 1, warn)
        self.assertIn("not valid UTF-8", warn[0])
        self.assertEqual(self.model.bodies()[0]["messages"][-1],
                         {"role": "user", "content": "caf\ufffd au lait"})
        ev = [e for e in self.session_events(self.session_ids()[0]) if e["type"] == "message"]
        self.assertEqual(ev[0]["payload"]["content"], "caf\ufffd au lait")


if __name__ == "__main__":
    main()
