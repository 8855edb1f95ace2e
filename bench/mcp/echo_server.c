/* echo_server.c — the smallest MCP stdio server that answers correctly:
 * initialize, tools/list (one tool "echo") and tools/call (answered at once),
 * with no JSON library, so its own time per call is a few microseconds and
 * what a client measures above that is the client's overhead.
 * argv[1]: milliseconds to sleep before serving (start-up cost of a real
 * server, for the parallel start-up benchmark). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long id_of(const char *line) {
  const char *p = strstr(line, "\"id\":");
  return p ? strtol(p + 5, NULL, 10) : -1;
}

int main(int argc, char **argv) {
  if (argc > 1) {
    long ms = atol(argv[1]);
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
  }
  static char line[1 << 20];
  setvbuf(stdout, NULL, _IOFBF, 1 << 16);
  while (fgets(line, sizeof line, stdin)) {
    long id = id_of(line);
    if (strstr(line, "\"method\":\"initialize\""))
      printf("{\"jsonrpc\":\"2.0\",\"id\":%ld,\"result\":{\"protocolVersion\":\"2025-06-18\","
             "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"echo\",\"version\":\"1\"}}}\n", id);
    else if (strstr(line, "\"method\":\"tools/list\""))
      printf("{\"jsonrpc\":\"2.0\",\"id\":%ld,\"result\":{\"tools\":[{\"name\":\"echo\","
             "\"inputSchema\":{\"type\":\"object\"}}]}}\n", id);
    else if (strstr(line, "\"method\":\"tools/call\""))
      printf("{\"jsonrpc\":\"2.0\",\"id\":%ld,\"result\":{\"content\":[{\"type\":\"text\","
             "\"text\":\"ok\"}]}}\n", id);
    else if (id >= 0 && strstr(line, "\"method\""))
      printf("{\"jsonrpc\":\"2.0\",\"id\":%ld,\"result\":{}}\n", id);
    else
      continue;
    fflush(stdout);
  }
  return 0;
}
