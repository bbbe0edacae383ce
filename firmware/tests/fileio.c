/* fileio: host file I/O through the libgloss traps -- open (trap 2) with
 * newlib's O_* flag values, write (trap 0), read (trap 1), lseek, fstat,
 * stat, unlink (trap 7 with SYS_lseek/fstat/stat/unlink), close (trap 6),
 * errno from failing calls, and the same through stdio (fopen/fprintf/fgets/
 * fseek/ftell/fclose).  The file is created in the current directory under
 * a name that differs between the -Og and -O2 builds, so both can run at
 * once. */
#define CHECK_USE_STDIO
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"

#ifdef __OPTIMIZE__
#define TMPNAME "epsim_fileio_opt.tmp"
#else
#define TMPNAME "epsim_fileio_noopt.tmp"
#endif

int main(void)
{
    char buf[128];
    int fd;
    long n;
    struct stat st;

    unlink(TMPNAME); /* leftovers from an interrupted run */

    fd = open(TMPNAME, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 3);
    n = (long)write(fd, "Hello, file!\n", 13);
    CHECK(n == 13);
    n = (long)write(fd, "0123456789", 10);
    CHECK(n == 10);
    CHECK(fstat(fd, &st) == 0 && st.st_size == 23 && S_ISREG(st.st_mode));
    printf("wrote 23 bytes, fstat size %ld, regular %d\n", (long)st.st_size, S_ISREG(st.st_mode) != 0);
    CHECK(close(fd) == 0);

    CHECK(stat(TMPNAME, &st) == 0 && st.st_size == 23);
    printf("stat size %ld\n", (long)st.st_size);

    fd = open(TMPNAME, O_RDONLY);
    CHECK(fd >= 0);
    memset(buf, 0, sizeof buf);
    n = (long)read(fd, buf, 5);
    CHECK(n == 5 && memcmp(buf, "Hello", 5) == 0);
    printf("read 5: \"%s\"\n", buf);
    CHECK(lseek(fd, 13, SEEK_SET) == 13);
    n = (long)read(fd, buf, sizeof buf);
    CHECK(n == 10 && memcmp(buf, "0123456789", 10) == 0);
    buf[n] = 0;
    printf("after lseek(13): read %ld \"%s\"\n", n, buf);
    CHECK(lseek(fd, -4, SEEK_END) == 19);
    n = (long)read(fd, buf, sizeof buf);
    CHECK(n == 4 && memcmp(buf, "6789", 4) == 0);
    n = (long)read(fd, buf, sizeof buf);
    CHECK(n == 0);
    printf("at EOF read returns %ld\n", n);
    CHECK(lseek(fd, 0, SEEK_CUR) == 23);
    CHECK(close(fd) == 0);

    /* append and read-write */
    fd = open(TMPNAME, O_WRONLY | O_APPEND);
    CHECK(fd >= 0);
    CHECK(write(fd, "+tail", 5) == 5);
    CHECK(close(fd) == 0);
    fd = open(TMPNAME, O_RDWR);
    CHECK(fd >= 0);
    CHECK(lseek(fd, 7, SEEK_SET) == 7);
    CHECK(write(fd, "FILE", 4) == 4);
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    n = (long)read(fd, buf, sizeof buf - 1);
    CHECK(n == 28);
    buf[n > 0 ? n : 0] = 0;
    printf("after append and overwrite (%ld bytes): %s\n", n, buf);
    CHECK(close(fd) == 0);

    /* errors */
    errno = 0;
    fd = open(TMPNAME, O_WRONLY | O_CREAT | O_EXCL, 0644);
    CHECK(fd == -1 && errno == EEXIST);
    printf("O_EXCL on an existing file: %d, errno %s\n", fd, errno == EEXIST ? "EEXIST" : "other");
    errno = 0;
    fd = open("epsim_no_such_dir/none.txt", O_RDONLY);
    CHECK(fd == -1 && errno == ENOENT);
    printf("open of a missing file: %d, errno %s\n", fd, errno == ENOENT ? "ENOENT" : "other");
    errno = 0;
    CHECK(close(1234) == -1 && errno == EBADF);
    printf("close(1234): errno %s\n", errno == EBADF ? "EBADF" : "other");

    /* stdio on the same file */
    {
        FILE *f = fopen(TMPNAME, "w+");
        int i;
        long pos;
        CHECK(f != NULL);
        if (f) {
            for (i = 0; i < 50; i++)
                fprintf(f, "line %02d: %d\n", i, i * i);
            pos = ftell(f);
            CHECK(pos == 654);
            CHECK(fseek(f, 0, SEEK_SET) == 0);
            for (i = 0; i < 48; i++)
                CHECK(fgets(buf, sizeof buf, f) != NULL);
            CHECK(fgets(buf, sizeof buf, f) != NULL);
            printf("ftell %ld, line 49: %s", pos, buf);
            CHECK(strcmp(buf, "line 48: 2304\n") == 0);
            CHECK(fclose(f) == 0);
        }
    }
    CHECK(unlink(TMPNAME) == 0);
    errno = 0;
    CHECK(stat(TMPNAME, &st) == -1 && errno == ENOENT);
    printf("unlinked: stat fails with %s\n", errno == ENOENT ? "ENOENT" : "other");
    return check_done("fileio");
}
