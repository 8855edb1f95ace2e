/* relay.h — moving the bytes of one proxied connection both ways.
 *
 * Used by the egress proxy (client <-> upstream). The bytes go through a
 * pipe per direction with splice(2), so they are never copied into the
 * process: the proxy's memory does not grow with its traffic. A pipe holds
 * at most its own size in bytes; while a receiver is slow the sender waits
 * in the kernel's flow control, and the relay sleeps until the receiver
 * takes more (one wake-up per burst, not per segment).
 */
#ifndef ZERO_NET_EGRESS_RELAY_H
#define ZERO_NET_EGRESS_RELAY_H

#include <stdint.h>

/* Relays between the stream sockets a (the client's end: a Unix socket or
 * loopback TCP, whose congestion control is set to reno) and b until both
 * directions have ended (each EOF passed on as a shutdown of the other
 * side's writing half) or one fails. Sets both sockets non-blocking;
 * closes neither. *a_to_b and *b_to_a (may be NULL) get the bytes moved
 * each way. Returns
 * 0 when both directions ended cleanly, -1 on an error or when stop_fd
 * (-1 = none) becomes readable: zero is shutting the proxy down. */
int zeg_relay(int a, int b, int stop_fd, uint64_t *a_to_b, uint64_t *b_to_a);

#endif
