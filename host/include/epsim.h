/* epsim.h -- controls of the simulated chip behind epsim's libe-hal.
 *
 * Run modes: EPSIM_FREE (the default): the chip runs in a background
 * thread, as the hardware does, while the host program runs, sleeps or
 * polls. EPSIM_DETERMINISTIC: simulated time advances only inside e-hal
 * calls (each costs its modelled eLink cycles, README "The e-hal drop-in")
 * and epsim_run/epsim_step/epsim_run_until_idle; the same program then
 * gives the same results every run. The environment variable EPSIM_MODE
 * (free | deterministic) chooses the mode at e_init. All return E_OK or
 * E_ERR (e_init not called, bad argument) unless stated. */
#ifndef EPSIM_H
#define EPSIM_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    EPSIM_FREE = 0,
    EPSIM_DETERMINISTIC = 1,
} epsim_mode_t;

typedef struct {
    unsigned long long cycles;        /* the host's clock: simulated cycles since e_init */
    unsigned long long host_cycles;   /* cycles charged for e-hal calls */
    unsigned long long calls;         /* e-hal calls that reached the chip */
    unsigned long long write_txns;    /* eLink write transactions (<= 8 bytes) */
    unsigned long long read_txns;     /* eLink read transactions */
    unsigned long long bytes_written; /* by e_write */
    unsigned long long bytes_read;    /* by e_read */
    unsigned long long instret;       /* instructions retired by all cores */
} epsim_stats_t;

int epsim_set_mode(epsim_mode_t mode);
/* EPSIM_FREE, EPSIM_DETERMINISTIC, or E_ERR. */
int epsim_get_mode(void);
/* Advances the chip this many cycles (in free mode too, synchronously). */
int epsim_run(unsigned long long cycles);
/* epsim_run(1). */
int epsim_step(void);
/* Runs until no loaded core can run (all exited, halted, or asleep with
 * nothing to wake them): E_OK; or until max_cycles pass: E_WARN. */
int epsim_run_until_idle(unsigned long long max_cycles);
/* The host's clock in cycles (0 before e_init). */
unsigned long long epsim_now(void);
int epsim_stats(epsim_stats_t *stats);

#ifdef __cplusplus
}
#endif

#endif
