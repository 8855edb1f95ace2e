"""How `zero exec` waits on a model server, as the official SDKs do: a
transient HTTP 500 before any output is retried; a server that accepts the
request and sends nothing is reported after the first-byte timeout (not the
5-minute stream idle timeout), with a waiting notice on stderr first; the
session stays readable and resumable."""
import time

from harness import ZeroTest, main


class ProviderWaits(ZeroTest):
    def test_a_500_before_any_output_is_retried(self):
        m = self.serve([{"status": 500}, {"text": "recovered"}])
        r = self.zero("exec", "hi")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "recovered\n")
        self.assertEqual(len(m.requests()), 2)

    def test_a_silent_server_is_reported_after_the_first_byte_timeout(self):
        self.serve([{"silent": True}, {"text": "next time"}])
        self.env["ZERO_FIRST_BYTE_TIMEOUT"] = "2s"
        t0 = time.monotonic()
        r = self.zero("exec", "-o", "stream-json", "hi", timeout=60)
        took = time.monotonic() - t0
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertLess(took, 30)  # far from the 300 s idle timeout
        self.assertIn("[zero] waiting for http://127.0.0.1:", r.stderr)
        evs = self.lines(r.stdout)
        errors = [e for e in evs if e["type"] == "error"]
        self.assertTrue(errors, r.stdout)
        self.assertIn("first-byte timeout", errors[-1]["message"])
        self.assertNotIn("[zero] waiting", r.stdout)  # stdout stays pure stream-json
        sid = evs[0]["sessionId"]
        r = self.zero("exec", "--resume", sid, "again")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "next time\n")


if __name__ == "__main__":
    main()
