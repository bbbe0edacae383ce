/* ptr_share_dev: follows the pointers of the host's struct job
 * (../c32/ptr_share.h) at JOB_DEVICE_ADDR: squares job->in[i] into
 * job->out[i], checks job->self, writes a reply string after the outputs
 * and a pointer to it in job->msg, its sizeof(struct job) in job->size,
 * the squares' sum in job->sum, and JOB_DONE last. (host/tests/lib32.rs) */
#include <string.h>

#include "../c32/ptr_share.h"

int main(void)
{
    struct job *job = (struct job *)JOB_DEVICE_ADDR;
    unsigned n = job->n;
    char *reply = (char *)(job->out + n);

    int sum = 0;

    job->size = sizeof(struct job);
    if (job->self != job || n != JOB_N) {
        strcpy(reply, "bad job: self or n");
    } else {
        for (unsigned i = 0; i < n; i++) {
            job->out[i] = job->in[i] * job->in[i];
            sum += job->out[i];
        }
        strcpy(reply, "squared by the core");
    }
    job->sum = sum;
    job->msg = reply;
    job->done = JOB_DONE;
    return 0;
}
