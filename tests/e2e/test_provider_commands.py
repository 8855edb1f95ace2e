"""zero models / providers / setup / doctor / usage against the real binary
(and the fake model server where an endpoint is needed)."""
import json
import os

from harness import ZeroTest, main


class Commands(ZeroTest):
    def cfg_path(self):
        return os.path.join(self.env["XDG_CONFIG_HOME"], "zero", "config.json")

    def test_models_list_json_and_filter(self):
        r = self.zero("models", "list", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        models = {m["id"]: m for m in json.loads(r.stdout)}
        for mid in ("gpt-5", "claude-sonnet-4-5", "gemini-2.5-pro"):
            self.assertIn(mid, models)
        self.assertEqual(models["claude-sonnet-4-5"]["inputPrice"], 3.0)
        self.assertIn("high", models["gpt-5"]["reasoningEfforts"])
        r = self.zero("models", "list", "--provider", "google")
        self.assertEqual(r.returncode, 0)
        self.assertIn("gemini-2.5-flash", r.stdout)
        self.assertNotIn("claude", r.stdout)

    def test_models_overridable_from_config(self):
        os.makedirs(os.path.dirname(self.cfg_path()))
        with open(self.cfg_path(), "w") as f:
            json.dump({"models": {"my-tune": {"provider": "local", "contextWindow": 4096,
                                              "inputPrice": 1, "outputPrice": 2},
                                  "gpt-5": {"contextWindow": 1000}}}, f)
        models = {m["id"]: m for m in json.loads(self.zero("models", "--json").stdout)}
        self.assertEqual(models["my-tune"]["contextWindow"], 4096)
        self.assertEqual(models["gpt-5"]["contextWindow"], 1000)

    def test_providers_add_use_rename_remove(self):
        r = self.zero("providers", "add", "groq", "--preset", "groq")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("GROQ_API_KEY", r.stdout)  # the next step
        r = self.zero("providers", "add", "gw", "--kind", "anthropic-compatible", "--base-url",
                      "https://gw.example/anthropic", "--model", "claude-x", "--api-key-env", "GW_KEY")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.zero("providers", "use", "gw").returncode, 0)
        lst = json.loads(self.zero("providers", "list", "--json").stdout)
        active = [p for p in lst if p["active"]]
        self.assertEqual(active[0]["name"], "gw")
        self.assertEqual(active[0]["key"], "missing")
        self.assertEqual(self.zero("providers", "rename", "gw", "gw2").returncode, 0)
        with open(self.cfg_path()) as f:
            doc = json.load(f)
        self.assertEqual(doc["activeProvider"], "gw2")
        self.assertEqual(oct(os.stat(self.cfg_path()).st_mode & 0o777), "0o600")
        self.assertEqual(self.zero("providers", "remove", "gw2").returncode, 0)
        r = self.zero("providers", "remove", "nope")
        self.assertEqual(r.returncode, 2)
        self.assertIn("zero providers list", r.stderr)
        r = self.zero("providers", "add", "x", "--preset", "nonesuch")
        self.assertEqual(r.returncode, 2)
        self.assertIn("openrouter", r.stderr)

    def test_setup_then_exec_uses_preset_profile(self):
        m = self.serve([{"text": "hi from the preset"}])
        for k in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"):
            self.env.pop(k)
        r = self.zero("setup", "--provider", "llamacpp", "--base-url", m.base_url, "--model", "m1")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.zero("exec", "hello")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "hi from the preset\n")
        self.assertEqual(m.bodies()[0]["model"], "m1")
        r = self.zero("setup")
        self.assertEqual(r.returncode, 2)

    def test_zero_provider_names_a_preset(self):
        m = self.serve([{"text": "ok"}])
        self.env.pop("OPENAI_API_KEY")
        self.env["ZERO_PROVIDER"] = "ollama"
        r = self.zero("doctor", "--json")
        rows = {c["check"]: c for c in json.loads(r.stdout)["checks"]}
        self.assertIn("ollama", rows["provider"]["detail"])
        self.assertIn("11434", rows["provider"]["detail"])

    def test_doctor_reports_the_sandbox_backend(self):
        self.serve([])
        r = self.zero("doctor", "--json")
        rows = {c["check"]: c for c in json.loads(r.stdout)["checks"]}
        self.assertIn(rows["sandbox"]["status"], ("ok", "warn"))
        self.assertRegex(rows["sandbox"]["detail"], r"^(bwrap|landlock|none) \(")
        self.env["ZERO_SANDBOX_FORCE_BACKEND"] = "none"
        r = self.zero("doctor", "--json")
        rows = {c["check"]: c for c in json.loads(r.stdout)["checks"]}
        self.assertEqual(rows["sandbox"]["status"], "warn")
        self.assertTrue(rows["sandbox"]["next"])

    def test_doctor_connectivity_ok_and_rejected_key(self):
        m = self.serve([])
        r = self.zero("doctor", "--connectivity")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("answered HTTP 200", r.stdout)
        self.assertTrue(any(q["path"] == "/v1/models" for q in m.requests()))
        self.env.pop("OPENAI_API_KEY")
        self.env["OPENAI_BASE_URL"] = "https://api.example.invalid/v1"
        r = self.zero("doctor", "--json")
        self.assertEqual(r.returncode, 3)
        doc = json.loads(r.stdout)
        self.assertFalse(doc["ok"])
        failing = [c for c in doc["checks"] if c["status"] == "fail"]
        self.assertIn("OPENAI_API_KEY", failing[0]["detail"])
        self.assertTrue(failing[0]["next"])

    def test_providers_detect_lists_local_models(self):
        # A fake Ollama on its own port serving two models.
        import subprocess, sys
        script = os.path.join(self.tmp, "empty.json")
        with open(script, "w") as f:
            f.write("[]")
        proc = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__),
                                 "fake_server.py"), script, "--models", "qwen3:8b,llama3.2"],
                                stdout=subprocess.PIPE, text=True)
        try:
            port = int(proc.stdout.readline().split()[1])
        except Exception:
            proc.kill()
            raise
        try:
            self.env["ZERO_DETECT_HOST"] = "ollama=127.0.0.1:%d" % port
            r = self.zero("providers", "detect", "--json")
            self.assertEqual(r.returncode, 0, r.stderr)
            found = {d["preset"]: d for d in json.loads(r.stdout)}
            self.assertTrue(found["ollama"]["running"])
            self.assertEqual(found["ollama"]["models"], ["qwen3:8b", "llama3.2"])
            r = self.zero("providers", "detect")
            self.assertIn("zero setup --provider ollama --model qwen3:8b", r.stdout)
        finally:
            proc.terminate()
            proc.wait(5)
            proc.stdout.close()

    def test_usage_totals_and_cost(self):
        self.serve([{"text": "a", "usage": {"prompt_tokens": 1000000, "completion_tokens": 1000000,
                                            "cached_tokens": 500000}},
                    {"text": "b", "usage": {"prompt_tokens": 10, "completion_tokens": 5}}],
                   model="gpt-4o-mini")
        self.assertEqual(self.zero("exec", "one").returncode, 0)
        self.assertEqual(self.zero("exec", "two").returncode, 0)
        r = self.zero("usage", "--json")
        self.assertEqual(r.returncode, 0, r.stderr)
        u = json.loads(r.stdout)
        self.assertEqual(u["total"]["requests"], 2)
        self.assertEqual(u["total"]["promptTokens"], 1000010)
        self.assertEqual(u["total"]["cachedInputTokens"], 500000)
        # gpt-4o-mini: 0.15 in, 0.075 cached, 0.60 out per 1M.
        expect = 0.5 * 0.15 + 0.5 * 0.075 + 1.0 * 0.60 + (10 * 0.15 + 5 * 0.60) / 1e6
        self.assertAlmostEqual(u["total"]["costUsd"], expect, places=6)
        self.assertEqual(list(u["models"]), ["gpt-4o-mini"])
        self.assertEqual(len(u["sessions"]), 2)
        self.assertEqual(len(u["days"]), 1)
        sid = sorted(u["sessions"])[0]
        r = self.zero("usage", "--session", sid)
        self.assertEqual(r.returncode, 0)
        self.assertIn("By model", r.stdout)
        r = self.zero("usage", "--session", "../etc")
        self.assertEqual(r.returncode, 2)


if __name__ == "__main__":
    main()
