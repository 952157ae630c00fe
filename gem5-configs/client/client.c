/*
 * memconform random client: a small SE-mode program for gem5 (and for native
 * runs) whose threads race on a few shared 64-bit words and record what they
 * did, so that memconform can check the run against SC, TSO, PSO, ...
 *
 *   client THREADS OPS WORDS SEED [ROUNDS [STRIDE [WRITE_PERCENT]]]
 *
 * THREADS threads in all: the main thread is thread t0 and creates THREADS-1
 * more (in gem5 SE mode every thread needs its own simulated CPU, so run with
 * `-n THREADS`). In each of ROUNDS rounds (default 1), every thread does OPS
 * random operations, each a read or (with probability WRITE_PERCENT %,
 * default 50) a write of one of WORDS shared words. Every round uses a fresh,
 * zeroed region of words, so every word starts at 0; a barrier separates the
 * rounds. Word k of a round lies STRIDE words (default 1) after word k-1, so
 * STRIDE=8 puts every word in its own 64-byte cache line.
 *
 * Accesses are relaxed atomics on volatile words: plain loads and stores, no
 * fences, no locked instructions, and the compiler may not reorder them.
 * Values are unique in the whole run: (thread+1) << 48 | counter.
 * Operation kinds and words are drawn before the first round from SEED (the
 * same SEED gives the same programs; the values read depend on the run).
 *
 * After the last round (all threads joined) the history is printed to stdout
 * in memconform's .hist format, framed so that it can be found in any output:
 *
 *   # memconform-client v1 threads=2 ops=3 words=2 seed=1 rounds=2 stride=1 writes=50
 *   @name client-s1-r0
 *   @round 0
 *   t0: W(w1,0x1000000000001) R(w0,0) R(w1,0x1000000000001)
 *   t1: W(w0,0x2000000000001) R(w1,0) W(w0,0x2000000000002)
 *   ---
 *   @name client-s1-r1
 *   @round 1
 *   ...
 *   # memconform-client end histories=2
 *
 * Build: cc -O2 -static -pthread client.c -o client   (gem5; see Makefile)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 4096u
#define MAX_COUNTER ((UINT64_C(1) << 48) - 1)
/* Barrier spins before a sched_yield (gem5 SE ignores sched_yield; natively
 * it lets a descheduled thread reach the barrier when threads > cores). */
#define SPINS_BEFORE_YIELD 256u

enum { OP_READ = 0, OP_WRITE = 1 };

struct op {
    uint64_t value; /* written, or read (filled in during the round) */
    uint32_t word;
    uint32_t kind;
};

static unsigned nthreads, nops, nwords, nrounds, stride, write_pct;
static uint64_t seed;
static volatile uint64_t *mem; /* nrounds regions of nwords * stride words */
static struct op *ops;         /* [round][thread][op] */

static unsigned barrier_count;
static unsigned barrier_sense;

static struct op *ops_of(unsigned round, unsigned thread)
{
    return ops + ((size_t)round * nthreads + thread) * nops;
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Sense-reversing barrier: one atomic increment per thread, then spinning. */
static void barrier(unsigned *local_sense)
{
    unsigned sense = !*local_sense;
    *local_sense = sense;
    if (__atomic_add_fetch(&barrier_count, 1, __ATOMIC_ACQ_REL) == nthreads) {
        __atomic_store_n(&barrier_count, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&barrier_sense, sense, __ATOMIC_RELEASE);
        return;
    }
    unsigned spins = 0;
    while (__atomic_load_n(&barrier_sense, __ATOMIC_ACQUIRE) != sense) {
        if (++spins == SPINS_BEFORE_YIELD) {
            spins = 0;
            sched_yield();
        }
    }
}

/* Draws every round's program of one thread: kinds, words, written values. */
static void plan(unsigned thread)
{
    uint64_t rng = seed ^ (UINT64_C(0x632be59bd9b4e019) * (thread + 1));
    uint64_t counter = 0;
    for (unsigned r = 0; r < nrounds; r++) {
        struct op *o = ops_of(r, thread);
        for (unsigned i = 0; i < nops; i++) {
            uint64_t x = splitmix64(&rng);
            o[i].word = (uint32_t)((x >> 8) % nwords);
            o[i].kind = (x & 0xff) * 100 < (uint64_t)write_pct * 256 ? OP_WRITE : OP_READ;
            o[i].value = o[i].kind == OP_WRITE
                             ? ((uint64_t)(thread + 1) << 48) | ++counter
                             : 0;
        }
    }
}

static void run(unsigned thread)
{
    unsigned sense = 0;
    barrier(&sense); /* every thread has drawn its program */
    const unsigned n = nops, rounds = nrounds;
    const size_t step = stride;
    for (unsigned r = 0; r < rounds; r++) {
        volatile uint64_t *base = mem + (size_t)r * nwords * step;
        struct op *o = ops_of(r, thread);
        barrier(&sense);
        for (unsigned i = 0; i < n; i++) {
            volatile uint64_t *p = base + o[i].word * step;
            if (o[i].kind == OP_WRITE)
                __atomic_store_n(p, o[i].value, __ATOMIC_RELAXED);
            else
                o[i].value = __atomic_load_n(p, __ATOMIC_RELAXED);
        }
    }
    barrier(&sense);
}

static void *worker(void *arg)
{
    unsigned thread = (unsigned)(uintptr_t)arg;
    plan(thread);
    run(thread);
    return NULL;
}

static void usage(const char *msg)
{
    fprintf(stderr,
            "memconform client: %s\n"
            "usage: client THREADS OPS WORDS SEED [ROUNDS [STRIDE [WRITE_PERCENT]]]\n"
            "  THREADS        threads, main included (1..%u; gem5 SE: -n THREADS)\n"
            "  OPS            operations per thread and round (>= 1)\n"
            "  WORDS          shared 64-bit words per round (>= 1)\n"
            "  SEED           seed of the random programs (unsigned 64-bit)\n"
            "  ROUNDS         rounds, one history each (default 1)\n"
            "  STRIDE         distance between words, in words (default 1; 8 = one per line)\n"
            "  WRITE_PERCENT  probability of a write, %% (default 50)\n",
            msg, MAX_THREADS);
    exit(2);
}

static uint64_t number(const char *s, const char *what, uint64_t min, uint64_t max)
{
    char *end;
    errno = 0;
    if (*s < '0' || *s > '9')
        usage(what);
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < min || v > max)
        usage(what);
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 8)
        usage("wrong number of arguments");
    nthreads = (unsigned)number(argv[1], "THREADS must be 1..4096", 1, MAX_THREADS);
    nops = (unsigned)number(argv[2], "OPS must be >= 1", 1, UINT32_MAX);
    nwords = (unsigned)number(argv[3], "WORDS must be >= 1", 1, UINT32_MAX);
    seed = number(argv[4], "SEED must be an unsigned 64-bit number", 0, UINT64_MAX);
    nrounds = argc > 5 ? (unsigned)number(argv[5], "ROUNDS must be >= 1", 1, UINT32_MAX) : 1;
    stride = argc > 6 ? (unsigned)number(argv[6], "STRIDE must be >= 1", 1, UINT32_MAX) : 1;
    write_pct = argc > 7 ? (unsigned)number(argv[7], "WRITE_PERCENT must be 0..100", 0, 100) : 50;
    if ((uint64_t)nops * nrounds > MAX_COUNTER)
        usage("OPS * ROUNDS too large for unique values");

    size_t nmem = (size_t)nrounds * nwords * stride;
    size_t nrec = (size_t)nrounds * nthreads * nops;
    void *m = NULL;
    if (nmem > SIZE_MAX / sizeof(uint64_t) || nrec > SIZE_MAX / sizeof(struct op) ||
        posix_memalign(&m, 64, nmem * sizeof(uint64_t)) != 0 ||
        !(ops = calloc(nrec, sizeof(struct op)))) {
        fprintf(stderr, "memconform client: out of memory\n");
        return 1;
    }
    memset(m, 0, nmem * sizeof(uint64_t));
    mem = m;

    pthread_t *tids = calloc(nthreads, sizeof(pthread_t));
    if (!tids) {
        fprintf(stderr, "memconform client: out of memory\n");
        return 1;
    }
    for (unsigned t = 1; t < nthreads; t++) {
        int e = pthread_create(&tids[t], NULL, worker, (void *)(uintptr_t)t);
        if (e) {
            fprintf(stderr,
                    "memconform client: cannot create thread %u of %u: %s"
                    " (gem5 SE: run with -n %u, one CPU per thread)\n",
                    t, nthreads, strerror(e), nthreads);
            return 1;
        }
    }
    worker((void *)(uintptr_t)0);
    for (unsigned t = 1; t < nthreads; t++)
        pthread_join(tids[t], NULL);

    static char buf[1 << 16];
    setvbuf(stdout, buf, _IOFBF, sizeof buf);
    printf("# memconform-client v1 threads=%u ops=%u words=%u seed=%" PRIu64
           " rounds=%u stride=%u writes=%u\n",
           nthreads, nops, nwords, seed, nrounds, stride, write_pct);
    for (unsigned r = 0; r < nrounds; r++) {
        if (r > 0)
            fputs("---\n", stdout);
        printf("@name client-s%" PRIu64 "-r%u\n@round %u\n", seed, r, r);
        for (unsigned t = 0; t < nthreads; t++) {
            const struct op *o = ops_of(r, t);
            printf("t%u:", t);
            for (unsigned i = 0; i < nops; i++) {
                if (o[i].kind == OP_WRITE)
                    printf(" W(w%u,0x%" PRIx64 ")", o[i].word, o[i].value);
                else if (o[i].value == 0)
                    printf(" R(w%u,0)", o[i].word);
                else
                    printf(" R(w%u,0x%" PRIx64 ")", o[i].word, o[i].value);
            }
            putchar('\n');
        }
    }
    printf("# memconform-client end histories=%u\n", nrounds);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("memconform client: writing the history");
        return 1;
    }
    return 0;
}
