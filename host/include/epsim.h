/* epsim.h -- controls of the simulated chip behind epsim's libe-hal.
 *
 * Run modes: EPSIM_FREE (the default): the chip runs in a background
 * thread, as the hardware does, while the host program runs, sleeps or
 * polls. EPSIM_DETERMINISTIC: simulated time advances only inside e-hal
 * calls (each costs its modelled eLink cycles, README "The e-hal drop-in")
 * and epsim_run/epsim_step/epsim_run_until_idle; the same program then
 * gives the same results every run. The environment variable EPSIM_MODE
 * (free | deterministic) chooses the mode at e_init. All return E_OK or
 * E_ERR (e_init not called, bad argument) unless stated.
 *
 * Diagnostics: EPSIM_LOG = off | error | warn (the default: why a call
 * failed, as the board's e-hal warns) | info (also each core the chip
 * stops: fault, breakpoint) | debug; e_set_host_verbosity(H_D1) is info
 * (README "The e-hal drop-in", Diagnostics). */
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
/* Advances the chip this many cycles (in free mode too, synchronously).
 * E_ERR, nothing run, if that would take the clock past its limit of 2^63
 * cycles (epsim_run(ULLONG_MAX) is refused). */
int epsim_run(unsigned long long cycles);
/* epsim_run(1). */
int epsim_step(void);
/* Runs until no loaded core can run (all exited, halted, or asleep with
 * nothing to wake them): E_OK; or until max_cycles pass: E_WARN. Here and
 * in epsim_run_until_cores_idle max_cycles is a bound, clamped to the
 * clock's limit (ULLONG_MAX: no bound). */
int epsim_run_until_idle(unsigned long long max_cycles);
/* Runs the chip until the chip-relative cores (rows[i], cols[i]), i < n,
 * are idle -- asleep in IDLE with no interrupt they would take latched (a
 * timer not yet expired wakes nothing yet), halted, or exited, their DMA
 * engines stopped -- all of them (any == 0) or at least one (any != 0).
 * Stops in the cycle the condition starts to hold: epsim_now() is then
 * that cycle (the one after the last IDLE's), every core and DMA engine
 * has acted in every cycle before it, and nothing after it (the same in
 * the fast and the strict scheduler). E_OK when it holds (at once, the
 * clock unchanged, if it already does); E_WARN when max_cycles pass first,
 * or at once when nothing on the chip can run any more and the condition
 * does not hold (it never will); E_ERR on bad arguments (n == 0, a core
 * outside the chip, NULL arrays). Works in both run modes. */
int epsim_run_until_cores_idle(const unsigned *rows, const unsigned *cols,
                               unsigned n, int any, unsigned long long max_cycles);
/* Whether the chip-relative core is idle in the sense above, at the host's
 * clock: 1, 0, or E_ERR (a core outside the chip). */
int epsim_core_idle(unsigned row, unsigned col);
/* Starts writing a trace of the chip to the file at path (created or
 * truncated): format 0 = text, 1 = JSON lines, the records of `epsim run
 * --trace` (README "Traces": one per instruction with its memory access,
 * interrupts, serviced system calls) plus one record for every host
 * access made through e-hal (e_read/e_write of SRAM, registers and DRAM,
 * e_start, e_signal, e_halt, e_resume, resets, e_load): the host's clock,
 * the kind, the target (core and offset, or DRAM device address) and the
 * length. Accesses through e_alloc's pointer are not seen. Replaces (and
 * closes) a trace already open. E_ERR, with a message on stderr, if the
 * file cannot be created or format is neither. The environment variables
 * EPSIM_TRACE=PATH and EPSIM_TRACE_FORMAT=text|json start the same trace
 * at e_init. */
int epsim_trace_start(const char *path, int format);
/* Flushes and closes the trace: E_OK (also when none was open); E_ERR,
 * with a message on stderr, if writing it failed. e_finalize does it too. */
int epsim_trace_stop(void);
/* The host's clock in cycles (0 before e_init). */
unsigned long long epsim_now(void);
int epsim_stats(epsim_stats_t *stats);

#ifdef __cplusplus
}
#endif

#endif
