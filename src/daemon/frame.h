/* frame.h — the daemon's control protocol on the wire (Go zero's
 * internal/daemon protocol, byte for byte).
 *
 * A frame is a 4-byte big-endian payload length, one kind byte, then the
 * payload. Kind 1 (ZDMN_KIND_CTRL) carries one JSON object whose "type" names
 * the message; kind 0 (ZDMN_KIND_DATA) is reserved by Go zero and refused by
 * the control reader, like any other kind. The length is checked against
 * ZDMN_FRAME_MAX (1 MiB) as soon as the header is in, before anything is
 * allocated for the payload, so a hostile length never costs memory.
 *
 * Messages (field names as Go zero's Ctrl struct):
 *   hello {version}                client → daemon, first frame
 *   hello_ok {version}             daemon's reply: the negotiated version
 *   run {session, cwd, prompt, args[]}  start a session, then stream it
 *   attach {session}               stream an existing session (history first)
 *   status / status_result {status}     the daemon's report
 *   shutdown                       drain and stop
 *   ack {session?, message?}       run/attach/shutdown accepted
 *   data {line}                    one stream-json line of a worker
 *   end {message?}                 the stream is over (session done, or daemon stopping)
 *   error {message, session?}      refused, or the session failed (why)
 */
#ifndef ZERO_DAEMON_FRAME_H
#define ZERO_DAEMON_FRAME_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

#define ZDMN_PROTO_VERSION 1
#define ZDMN_FRAME_MAX (1u << 20) /* payload bytes */
#define ZDMN_FRAME_HEADER 5

enum { ZDMN_KIND_DATA = 0, ZDMN_KIND_CTRL = 1 };

/* Appends one frame to out. Returns -1 with err (ZE_TOO_LARGE) and appends
 * nothing when the payload is over the cap. */
int zdmn_frame_encode(zbuf *out, uint8_t kind, const void *payload, size_t len, zerr *err);

/* Appends msg, compact JSON, as a control frame. */
int zdmn_frame_encode_ctrl(zbuf *out, const json_t *msg, zerr *err);

/* Looks for one complete frame at the start of buf (len bytes received so
 * far). Returns 1 with *kind, *payload (pointing into buf), *plen and
 * *consumed (header + payload) set; 0 when more bytes are needed; -1 with err
 * when the header announces more than ZDMN_FRAME_MAX (ZE_TOO_LARGE). The
 * kind is not judged here (zdmn_ctrl_decode does). Never reads past len. */
int zdmn_frame_parse(const uint8_t *buf, size_t len, uint8_t *kind, const uint8_t **payload,
                     uint32_t *plen, size_t *consumed, zerr *err);

/* A control message from a frame: kind must be ZDMN_KIND_CTRL and the
 * payload a JSON object with a string "type". New reference, or NULL with
 * err (ZE_INVALID) saying which rule was broken. */
json_t *zdmn_ctrl_decode(uint8_t kind, const uint8_t *payload, size_t len, zerr *err);

/* Blocking I/O on a connected socket (the client side). zdmn_read_ctrl
 * waits up to timeout_ms (-1: forever) for the whole frame; a peer that
 * closes mid-frame is "truncated frame" (ZE_INVALID), one that closes
 * between frames ZE_NOT_FOUND ("connection closed"). */
int zdmn_write_ctrl(int fd, const json_t *msg, zerr *err);
json_t *zdmn_read_ctrl(int fd, int timeout_ms, zerr *err);

/* The version both ends speak: the lower of the client's and ours; 0 when
 * the client's is not a positive integer (the daemon then refuses). */
int zdmn_negotiate_version(const json_t *hello);

#endif
