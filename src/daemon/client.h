/* client.h — talking to a running daemon over its control socket (the
 * `zero daemon run|attach|status|stop` side).
 *
 * Life cycle: zdmn_client_connect (socket checks, connect, hello/hello_ok);
 * zdmn_write_ctrl one command; read the replies (zdmn_client_stream for a
 * session's stream, zdmn_read_ctrl for one answer); close the fd.
 */
#ifndef ZERO_DAEMON_CLIENT_H
#define ZERO_DAEMON_CLIENT_H

#include <jansson.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/err.h"
#include "daemon/runtime.h"

#define ZDMN_CLIENT_HANDSHAKE_MS 10000

/* Connects and shakes hands. Returns the fd, or -1 with err: ZE_NOT_FOUND
 * when no daemon runs, ZE_CONFIG when the socket was refused as unsafe
 * (runtime.h), ZE_INVALID when the daemon refused us or speaks no version
 * we know. */
int zdmn_client_connect(const zdmn_paths *p, zerr *err);

/* zdmn_client_connect's two halves: the socket checks and the connect (the
 * fd, or -1 with err), then hello/hello_ok on a connected fd, which is
 * closed when the handshake fails (the fd, or -1 with err). The remote
 * bridge dials and relays; its client shakes hands through the bridge. */
int zdmn_client_dial(const zdmn_paths *p, zerr *err);
int zdmn_client_handshake(int fd, zerr *err);

typedef enum zdmn_stream_end {
  ZDMN_STREAM_DONE,   /* end: the session finished (or the daemon stopped) */
  ZDMN_STREAM_FAILED, /* error: the session failed or the request was refused */
  ZDMN_STREAM_BROKEN, /* the connection or a frame broke (err says how) */
} zdmn_stream_end;

/* After run/attach: reads the ack, then every data frame's line to on_line,
 * until end or error. *exit_code gets the session's last worker exit code
 * when the daemon sent one (else -1); message gets the error or end text. */
zdmn_stream_end zdmn_client_stream(int fd, void (*on_line)(void *ud, const char *line, size_t len),
                                   void *ud, int *exit_code, zbuf *message, zerr *err);

#endif
