"""view_image hands the image to the model: the next Chat Completions request
carries it (as a user message after the tool results, since tool messages
there hold text only), and --resume sends it again."""
import base64
import json
import os
import struct
import zlib

from harness import ZeroTest, main


def tiny_png(w=2, h=2):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + b"\xff\x00\x00" * w for _ in range(h))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def image_urls(body):
    urls = []
    for m in body["messages"]:
        if m["role"] == "user" and isinstance(m["content"], list):
            urls += [p["image_url"]["url"] for p in m["content"] if p.get("type") == "image_url"]
    return urls


class ViewImage(ZeroTest):
    def test_image_reaches_the_model_and_survives_resume(self):
        png = tiny_png()
        with open(os.path.join(self.work, "shot.png"), "wb") as f:
            f.write(png)
        want = "data:image/png;base64," + base64.b64encode(png).decode()
        m = self.serve([{"tool_calls": [{"name": "view_image", "arguments": {"path": "shot.png"}}]},
                        {"text": "a red square"}], model="gpt-4o-mini")
        r = self.zero("exec", "-o", "json", "what is in shot.png?")
        self.assertEqual(r.returncode, 0, r.stderr)
        second = m.bodies()[1]
        self.assertEqual(image_urls(second), [want])
        roles = [x["role"] for x in second["messages"]]
        self.assertEqual(roles[-2:], ["tool", "user"])  # the image follows the tool result
        sid = json.loads(r.stdout)["sessionId"]

        m2 = self.serve([{"text": "still red"}], model="gpt-4o-mini")
        r = self.zero("exec", "--resume", sid, "and now?")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(image_urls(m2.bodies()[0]), [want])


if __name__ == "__main__":
    main()
