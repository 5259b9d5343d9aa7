/*
 * proc-reader: prints the process tables of the kernel it runs under, for the hardening audit's
 * gVisor half. The control plane execs it inside an enclosure under runsc, from the read-only agent
 * bundle, as a user no enclosure process has. It is linked statically so that nothing of the image
 * takes part: no dynamic loader, no libc, no /etc/ld.so.preload, no shell, no `head` of the image's.
 *
 * Usage: proc-reader NET_TABLE...
 * Prints "reader PID nproc HARD" (HARD: RLIMIT_NPROC's hard limit, or "unlimited"), then, in the
 * format of `head` given several files ("==> PATH <==" before each, a blank line between them),
 * /proc/self/mountinfo, every /proc/PID/status and every /proc/PID/net/TABLE for the tables named.
 * Each file is cut at MAX_FILE_BYTES; a file that cannot be read (a process gone) is left out.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define MAX_FILE_BYTES (1024 * 1024)
#define MAX_PIDS 65536

static int printed;

static void print_file(const char *path) {
  static char buf[65536];
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return;
  size_t total = 0;
  ssize_t n = read(fd, buf, sizeof buf);
  if (n < 0) {
    close(fd);
    return;
  }
  printf("%s==> %s <==\n", printed++ ? "\n" : "", path);
  while (n > 0 && total < MAX_FILE_BYTES) {
    size_t take = (size_t)n;
    if (total + take > MAX_FILE_BYTES) take = MAX_FILE_BYTES - total;
    fwrite(buf, 1, take, stdout);
    total += take;
    if (buf[take - 1] != '\n' && total >= MAX_FILE_BYTES) putchar('\n');
    n = read(fd, buf, sizeof buf);
  }
  close(fd);
}

static int by_number(const void *a, const void *b) {
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NPROC, &rl) == 0 && rl.rlim_max != RLIM_INFINITY) printf("reader %ld nproc %llu\n", (long)getpid(), (unsigned long long)rl.rlim_max);
  else printf("reader %ld nproc unlimited\n", (long)getpid());

  static long pids[MAX_PIDS];
  size_t count = 0;
  DIR *proc = opendir("/proc");
  if (!proc) {
    fprintf(stderr, "proc-reader: cannot open /proc: %s\n", strerror(errno));
    return 1;
  }
  for (struct dirent *e; (e = readdir(proc)) != NULL && count < MAX_PIDS;) {
    const char *s = e->d_name;
    if (!*s) continue;
    while (*s && isdigit((unsigned char)*s)) s++;
    if (!*s) pids[count++] = strtol(e->d_name, NULL, 10);
  }
  closedir(proc);
  qsort(pids, count, sizeof pids[0], by_number);

  char path[256];
  print_file("/proc/self/mountinfo");
  for (size_t i = 0; i < count; i++) {
    snprintf(path, sizeof path, "/proc/%ld/status", pids[i]);
    print_file(path);
  }
  for (int t = 1; t < argc; t++) {
    /* Table names are the control plane's own words; anything else is refused. */
    for (const char *c = argv[t]; *c; c++) {
      if (!isalnum((unsigned char)*c) && *c != '_') {
        fprintf(stderr, "proc-reader: bad table name\n");
        return 2;
      }
    }
    for (size_t i = 0; i < count; i++) {
      snprintf(path, sizeof path, "/proc/%ld/net/%s", pids[i], argv[t]);
      print_file(path);
    }
  }
  return fflush(stdout) == 0 ? 0 : 1;
}
