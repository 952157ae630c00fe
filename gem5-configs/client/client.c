/*
 * memconform client: a small SE-mode program for gem5 (and for native runs)
 * whose threads race on shared 64-bit words and record what they did, so
 * that memconform can check the run against SC, TSO, PSO, ...
 *
 * Two command lines (see gem5-configs/README.md):
 *
 *   client THREADS OPS WORDS SEED [ROUNDS [STRIDE [WRITE_PERCENT]]]     (v1)
 *   client --threads N [--rounds R] [--seed S] [--shape SHAPE] ...       (v2)
 *
 * THREADS threads in all: the main thread is thread t0 and creates THREADS-1
 * more (in gem5 SE mode every thread needs its own simulated CPU, so run with
 * `-n THREADS`). Every round uses fresh, zeroed words, so every word starts
 * at 0; a barrier separates the rounds. Plain accesses are relaxed atomics on
 * volatile words: plain loads and stores, which the compiler may not reorder
 * or merge. After the last round (all threads joined) the main thread prints
 * every round as a history in memconform's .hist format, framed by a header
 * `# memconform-client vN ...` and `# memconform-client end histories=N`.
 *
 * v1 (positional arguments: random rounds). In each of ROUNDS rounds
 * (default 1), every thread does OPS random operations, each a read or (with
 * probability WRITE_PERCENT %, default 50) a write of one of WORDS shared
 * words. Word k of a round lies STRIDE words (default 1) after word k-1, so
 * STRIDE=8 puts every word in its own 64-byte cache line. No fences, no
 * locked instructions. Values are unique in the whole run:
 * (thread+1) << 48 | counter. Operation kinds and words are drawn before the
 * first round from SEED (the same SEED gives the same programs; the values
 * read depend on the run).
 *
 *   # memconform-client v1 threads=2 ops=3 words=2 seed=1 rounds=2 stride=1 writes=50
 *   @name client-s1-r0
 *   @round 0
 *   t0: W(w1,0x1000000000001) R(w0,0) R(w1,0x1000000000001)
 *   t1: W(w0,0x2000000000001) R(w1,0) W(w0,0x2000000000002)
 *   ---
 *   ...
 *   # memconform-client end histories=2
 *
 * v2 (named options: litmus shapes). Every round runs one shape on two
 * variables x and y (the shape's threads P0, P1, ... placed on some of the
 * THREADS threads; the others wait at the barrier and have empty lines), with
 * optional mfences, locked RMWs, a warm-up read and an address-dependency
 * delay before the load a reordering needs to be late. usage() lists the
 * options; the README describes the shapes and the output:
 *
 *   # memconform-client v2 threads=2 rounds=2 seed=7 shape=mp place=random ...
 *   @name client-s7-r0
 *   @round 0
 *   @shape MP
 *   @place t1 t0
 *   @sharing own-line
 *   @final x=1 y=2
 *   t0: R(x,0) R(y,2) R(x,0)
 *   t1: W(x,1) F W(y,2)
 *   ---
 *   ...
 *   # memconform-client end histories=2
 *
 * aarch64 (built with aarch64-linux-gnu-gcc; `make aarch64`): the same
 * options and shapes, `--fence dmb` (DMB ISH) for mfence, LDXR/STXR loops
 * for the RMWs, and the aarch64 shapes (LDAR, LDAPR, STLR, DMB ISH/ISHLD/
 * ISHST, exclusive swaps); the header says `isa=aarch64`, and each v2 round
 * names every thread's instructions on an `@arm tN ...` line.
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
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if defined(__aarch64__)
#define ISA_ARM 1
#else
#define ISA_ARM 0
#endif

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
/* --barrier plain: barriers reached by each thread, one 64-byte line each. */
static volatile uint64_t *barrier_arrived;
#define ARRIVED_STRIDE 8

/* A thread's side of the barrier: its sense (atomic barrier), its number
 * and how many barriers it has reached (plain barrier). */
struct barrier_local {
    unsigned sense;
    unsigned thread;
    uint64_t reached;
};

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

static void spin_step(unsigned *spins)
{
    if (++*spins == SPINS_BEFORE_YIELD) {
        *spins = 0;
        sched_yield();
    }
}

/* The default barrier, sense-reversing: one locked increment per thread,
 * then spinning on the sense. With --barrier plain (no locked instruction,
 * for protocols whose locked RMWs are under test or broken), each thread
 * publishes how many barriers it has reached in its own line and leaves
 * once every thread's count is at least its own: counts only grow, so a
 * thread that runs ahead to the next barrier strands no one. */
static void barrier(struct barrier_local *b)
{
    unsigned spins = 0;
    if (barrier_arrived) {
        uint64_t reached = ++b->reached;
        __atomic_store_n(&barrier_arrived[(size_t)b->thread * ARRIVED_STRIDE], reached,
                         __ATOMIC_RELEASE);
        for (unsigned t = 0; t < nthreads; t++)
            while (__atomic_load_n(&barrier_arrived[(size_t)t * ARRIVED_STRIDE],
                                   __ATOMIC_ACQUIRE) < reached)
                spin_step(&spins);
        return;
    }
    unsigned sense = !b->sense;
    b->sense = sense;
    if (__atomic_add_fetch(&barrier_count, 1, __ATOMIC_ACQ_REL) == nthreads) {
        __atomic_store_n(&barrier_count, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&barrier_sense, sense, __ATOMIC_RELEASE);
        return;
    }
    while (__atomic_load_n(&barrier_sense, __ATOMIC_ACQUIRE) != sense)
        spin_step(&spins);
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
    struct barrier_local bar = {0, thread, 0};
    barrier(&bar); /* every thread has drawn its program */
    const unsigned n = nops, rounds = nrounds;
    const size_t step = stride;
    for (unsigned r = 0; r < rounds; r++) {
        volatile uint64_t *base = mem + (size_t)r * nwords * step;
        struct op *o = ops_of(r, thread);
        barrier(&bar);
        for (unsigned i = 0; i < n; i++) {
            volatile uint64_t *p = base + o[i].word * step;
            if (o[i].kind == OP_WRITE)
                __atomic_store_n(p, o[i].value, __ATOMIC_RELAXED);
            else
                o[i].value = __atomic_load_n(p, __ATOMIC_RELAXED);
        }
    }
    barrier(&bar);
}

static void *worker(void *arg)
{
    unsigned thread = (unsigned)(uintptr_t)arg;
    plan(thread);
    run(thread);
    return NULL;
}

static const char USAGE[] =
    "usage: client THREADS OPS WORDS SEED [ROUNDS [STRIDE [WRITE_PERCENT]]]   (v1)\n"
    "  THREADS        threads, main included (1..%u; gem5 SE: -n THREADS)\n"
    "  OPS            operations per thread and round (>= 1)\n"
    "  WORDS          shared 64-bit words per round (>= 1)\n"
    "  SEED           seed of the random programs (unsigned 64-bit)\n"
    "  ROUNDS         rounds, one history each (default 1)\n"
    "  STRIDE         distance between words, in words (default 1; 8 = one per line)\n"
    "  WRITE_PERCENT  probability of a write, %% (default 50)\n"
    "usage: client --threads N [OPTION VALUE]...                              (v2)\n"
    "  --threads N        threads, main included (1..%u; gem5 SE: -n N); required\n"
    "  --rounds R         rounds, one history each (default 1)\n"
    "  --seed S           seed of the programs (unsigned 64-bit, default 1)\n"
    "  --shape SHAPE      random mp sb lb iriw wrc 2+2w mp+sm mp+s mix (default mix;\n"
    "                     mix draws every shape but mp+s);\n"
    "                     aarch64 client also: sb-rel-acq sb-rel-acqpc mp-dmb\n"
    "                     mp-dmb-stld mp-rel-acq iriw-acq excl\n"
    "  --place P          first: shape thread Pi on ti; random: anywhere,\n"
    "                     new each round (default random)\n"
    "  --sharing S        same-line, own-line, random (default random)\n"
    "  --fence F          none, mfence (aarch64: dmb, i.e. DMB ISH) at every fence\n"
    "                     position, random (default none)\n"
    "  --rmw M            none, xchg (stores), cmpxchg (stores and loads),\n"
    "                     random (per access) (default none); aarch64: LDXR/STXR loops\n"
    "  --warm-up W        on, off, random: a plain read of the second-read\n"
    "                     variable before a delayed load (default on)\n"
    "  --warm-order O     any: the warm-up reads race; first: the first thread of\n"
    "                     the shape (the writer) reads before the others, and\n"
    "                     starts its program once they have (a handshake on a\n"
    "                     line of its own, not in the history): the others hold\n"
    "                     the line shared, not exclusive (default any)\n"
    "  --delay-chain N    dependent divisions before a delayed load, 0 = none\n"
    "                     (default 12)\n"
    "  --delay-misses N   dependent loads of cold lines (0..4) before a delayed\n"
    "                     load, each a trip to memory in one micro-op: a long\n"
    "                     delay that leaves the core's window free (default 0)\n"
    "  --spin MAX         random spin of 0..MAX iterations before each thread's\n"
    "                     program (default 32)\n"
    "  --ops N            accesses per thread of a random round (default 4)\n"
    "  --writes PERCENT   probability of a write in a random round (default 50)\n"
    "  --stream on|off    on: print each round as it ends (thread 0, between two\n"
    "                     barriers), so that `memconform watch` checks a run while it\n"
    "                     runs and stops it at the first violation; off: print every\n"
    "                     round after the last (default off)\n"
    "  --evict N          after its program, each thread reads N lines (64 B) of its\n"
    "                     own buffer, a new stretch each round: replacements of the\n"
    "                     round's lines in L1 (N >= its lines) or L2; 0 = none\n"
    "                     (default 0; not in the history)\n"
    "  --evict-at A       spread: the N lines in a row; conflict: one line a page,\n"
    "                     at the page offset of the round's x: every read misses\n"
    "                     in x's set of an L2 of up to 64 sets (32 kB 8-way),\n"
    "                     replacing x while other cores may ask for it; inside:\n"
    "                     as conflict, but a share of the reads after each access\n"
    "                     of the program, at the line it accessed; refill: after\n"
    "                     each access all N lines of N fixed pages at its page\n"
    "                     offset, the same every time: L2 hits that replace the\n"
    "                     line in the L1 only, so the next access of it refills\n"
    "                     from the L2 (N 2..64; default spread)\n"
    "  --code-line on|off on: after its program, each thread also runs a\n"
    "                     four-byte function whose line holds a word the even\n"
    "                     threads write first and all read: instruction fetches\n"
    "                     of a line cores write; with --evict-at conflict or\n"
    "                     inside the writers also read N/2 lines at its set\n"
    "                     before the fetch, replacing the line they wrote; with\n"
    "                     refill, also after every access: a store (after a\n"
    "                     store) or load of the word, the fetch, then N more\n"
    "                     copies of the function a page apart and N reads at\n"
    "                     its offset, which replace it in the L1I and the L1D\n"
    "                     (default off; not in the history)\n"
    "  --barrier B        atomic: barriers count with a locked add; plain: with\n"
    "                     plain stores and loads only, for protocols whose locked\n"
    "                     RMWs are broken or under test (default atomic)\n";

static void usage(const char *msg)
{
    fprintf(stderr, "memconform client: %s\n", msg);
    fprintf(stderr, USAGE, MAX_THREADS, MAX_THREADS);
    exit(2);
}

/* ---------------------------------------------------------------------------
 * Output that gem5 can read.
 *
 * gem5 SE mode reads a write()'s buffer functionally, outside the protocol's
 * timing. Ruby answers a functional read from a controller that holds the
 * line readable, or from a message in flight; a line whose only copy is
 * elsewhere fails it (gem5 stops with `Ruby functional read failed` and no
 * statistics): above all a line an inclusive L2 is writing back, its data
 * waiting in the memory controller. A small L2 makes that common: the
 * printing thread's own misses (the histories it reads, its output) evict
 * earlier output lines, and their L1 copies with them. So the output goes
 * through small chunks, and each chunk is settled before its write(): a
 * load of each of its lines (a miss may start a replacement), a write() of
 * nothing (the system call's own code and stack, so that the real one
 * misses nowhere), then a spin with no miss at all, long enough for every
 * replacement and writeback in flight to land. A line is then readable in
 * a cache, or in memory with the directory idle.
 */
#define OUT_CHUNK 1024
#define OUT_SETTLE_SPINS 20000

static ssize_t settled_write(void *cookie, const char *p, size_t n)
{
    (void)cookie;
    size_t done = 0;
    while (done < n) {
        size_t len = n - done < OUT_CHUNK ? n - done : OUT_CHUNK;
        const volatile char *v = p + done;
        unsigned sum = 0;
        for (size_t i = 0; i < len; i += 64)
            sum += (unsigned char)v[i];
        sum += (unsigned char)v[len - 1];
        (void)sum;
        if (write(STDOUT_FILENO, p + done, 0) < 0 && errno != EINTR)
            return done ? (ssize_t)done : -1;
        for (volatile unsigned i = 0; i < OUT_SETTLE_SPINS; i++)
            ;
        ssize_t w = write(STDOUT_FILENO, p + done, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return done ? (ssize_t)done : -1;
        done += (size_t)w;
    }
    return (ssize_t)done;
}

/* stdout through settled_write, fully buffered in a static OUT_CHUNK
 * buffer (no heap, no page the run has not touched). */
static void settled_stdout(void)
{
    static char buf[OUT_CHUNK];
    cookie_io_functions_t io = {.write = settled_write};
    FILE *f = fopencookie(NULL, "w", io);
    if (!f) {
        perror("memconform client: fopencookie");
        exit(1);
    }
    setvbuf(f, buf, _IOFBF, sizeof buf);
    stdout = f;
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

static int main_v1(int argc, char **argv)
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
    free(tids);

    settled_stdout();
    printf("# memconform-client v1 threads=%u ops=%u words=%u seed=%" PRIu64
           " rounds=%u stride=%u writes=%u%s\n",
           nthreads, nops, nwords, seed, nrounds, stride, write_pct,
           ISA_ARM ? " isa=aarch64" : "");
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

/* ---------------------------------------------------------------------------
 * v2: litmus shapes.
 *
 * A shape is a list of threads P0, P1, ..., each a short list of accesses to
 * x or y; a written value is fixed by the shape (unique per variable, never
 * 0). A `delayed` load gets its address through a chain of dependent
 * divisions, so that an out-of-order core executes the next (independent)
 * load first; a thread with a delayed load may start with a plain warm-up
 * read of the variable its last load reads, to bring that line into its
 * cache (so that the last load hits and can execute early).
 */

/* x and y: the shape's variables; z: a third word on x's line (the MP+SM
 * reader's store), never on y's line unless sharing is same-line. */
enum { VX = 0, VY = 1, VZ = 2, NVARS = 3 };

/* How an ARM shape access orders (aarch64 shapes only): a plain access,
 * a load-acquire LDAR (RCsc), an RCpc load-acquire LDAPR, a store-release
 * STLR. */
enum { ORD_PLAIN, ORD_ACQ, ORD_ACQPC, ORD_REL };
/* A barrier a shape puts before one of its accesses: DMB ISH (full), DMB
 * ISHLD (orders earlier loads), DMB ISHST (orders stores among themselves). */
enum { FK_NONE, FK_ISH, FK_ISHLD, FK_ISHST };

struct tacc {
    char kind;             /* 'R', 'W' or 'X' (an exclusive swap, LDXR/STXR) */
    unsigned char var;     /* VX or VY */
    unsigned char value;   /* written value (W, X) */
    unsigned char delayed; /* load: address depends on the delay chain */
    unsigned char ord;     /* ORD_*: acquire/release (aarch64 shapes) */
    unsigned char fence;   /* FK_*: the shape's barrier before this access */
};

struct role {
    unsigned char n;    /* accesses */
    unsigned char warm; /* warm-up read of variable warm-1; 0: none */
    struct tacc acc[3];
};

struct shape {
    const char *opt; /* --shape value */
    const char *tag; /* @shape value */
    unsigned nroles; /* 0: every thread (random rounds) */
    struct role role[4];
    int arm;         /* an aarch64 shape (acquire/release, DMBs, exclusives) */
};

#define WR(v, val) {'W', v, val, 0, ORD_PLAIN, FK_NONE}
#define RD(v) {'R', v, 0, 0, ORD_PLAIN, FK_NONE}
#define RDELAY(v) {'R', v, 0, 1, ORD_PLAIN, FK_NONE}
/* aarch64: STLR, LDAR, LDAPR (delayed or not), a plain access after a
 * barrier, an exclusive swap */
#define WREL(v, val) {'W', v, val, 0, ORD_REL, FK_NONE}
#define RACQ(v) {'R', v, 0, 0, ORD_ACQ, FK_NONE}
#define RACQDELAY(v) {'R', v, 0, 1, ORD_ACQ, FK_NONE}
#define RACQPC(v) {'R', v, 0, 0, ORD_ACQPC, FK_NONE}
#define WRAFTER(fk, v, val) {'W', v, val, 0, ORD_PLAIN, fk}
#define RDAFTER(fk, v) {'R', v, 0, 0, ORD_PLAIN, fk}
#define XSWAP(v, val) {'X', v, val, 0, ORD_PLAIN, FK_NONE}

enum {
    SH_RANDOM, SH_MP, SH_SB, SH_LB, SH_IRIW, SH_WRC, SH_2P2W, SH_MPSM, SH_MPS,
    /* aarch64 only */
    SH_SBRELACQ, SH_SBRELACQPC, SH_MPDMB, SH_MPDMBSTLD, SH_MPRELACQ, SH_IRIWACQ, SH_EXCL,
    SH_COUNT, SH_MIX = SH_COUNT
};

static const struct shape shapes[SH_COUNT] = {
    [SH_RANDOM] = {"random", "RANDOM", 0, {{0}}}, /* every thread: --ops random accesses */
    /* W(x,1) W(y,2) || [R(x)] R(y)* R(x) */
    [SH_MP] = {"mp", "MP", 2,
               {{2, 0, {WR(VX, 1), WR(VY, 2)}}, {2, VX + 1, {RDELAY(VY), RD(VX)}}}},
    /* W(x,1) R(y) || W(y,2) R(x) */
    [SH_SB] = {"sb", "SB", 2, {{2, 0, {WR(VX, 1), RD(VY)}}, {2, 0, {WR(VY, 2), RD(VX)}}}},
    /* R(x) W(y,1) || R(y) W(x,2) */
    [SH_LB] = {"lb", "LB", 2, {{2, 0, {RD(VX), WR(VY, 1)}}, {2, 0, {RD(VY), WR(VX, 2)}}}},
    /* W(x,1) || W(y,2) || [R(y)] R(x)* R(y) || [R(x)] R(y)* R(x) */
    [SH_IRIW] = {"iriw", "IRIW", 4,
                 {{1, 0, {WR(VX, 1)}},
                  {1, 0, {WR(VY, 2)}},
                  {2, VY + 1, {RDELAY(VX), RD(VY)}},
                  {2, VX + 1, {RDELAY(VY), RD(VX)}}}},
    /* W(x,1) || R(x) W(y,2) || [R(x)] R(y)* R(x) */
    [SH_WRC] = {"wrc", "WRC", 3,
                {{1, 0, {WR(VX, 1)}},
                 {2, 0, {RD(VX), WR(VY, 2)}},
                 {2, VX + 1, {RDELAY(VY), RD(VX)}}}},
    /* W(x,1) W(y,2) || W(y,3) W(x,4), final values observed after the round */
    [SH_2P2W] = {"2+2w", "2+2W", 2,
                 {{2, 0, {WR(VX, 1), WR(VY, 2)}}, {2, 0, {WR(VY, 3), WR(VX, 4)}}}},
    /* [R(x)] W(x,1) W(y,2) || [R(x)] W(z,3) R(y)* R(x): MP whose reader holds
     * x's line shared and is upgrading it (its store to z, on x's line) when
     * the writer's store to x invalidates it: MESI_Two_Level's SM state. Both
     * warm-up reads make the line shared (a lone reader would get it
     * exclusive and its store would not upgrade). */
    [SH_MPSM] = {"mp+sm", "MP+SM", 2,
                 {{2, VX + 1, {WR(VX, 1), WR(VY, 2)}},
                  {3, VX + 1, {WR(VZ, 3), RDELAY(VY), RD(VX)}}}},
    /* [R(x)] W(x,1) W(y,2) || [R(x)] R(y)* R(x): MP whose reader holds x's
     * line shared when the writer's store invalidates it. With --warm-order
     * first the writer reads x first (a lone reader gets the line
     * exclusive), so the reader's copy is the sharer's: MOESI_hammer's S
     * (catalogue MH-2), and MP+SM's SM (MH-1). */
    [SH_MPS] = {"mp+s", "MP+S", 2,
                {{2, VX + 1, {WR(VX, 1), WR(VY, 2)}}, {2, VX + 1, {RDELAY(VY), RD(VX)}}}},
    /* aarch64 shapes. STLR x=1; LDAR y || STLR y=2; LDAR x: SB whose
     * release/acquire pairs are RCsc, so both reading 0 is forbidden (gem5
     * issue #1242: ARM O3 lets the LDAR go before the older STLR) */
    [SH_SBRELACQ] = {"sb-rel-acq", "SB+REL+ACQ", 2,
                     {{2, 0, {WREL(VX, 1), RACQ(VY)}}, {2, 0, {WREL(VY, 2), RACQ(VX)}}}, 1},
    /* the same with LDAPR (RCpc): both reading 0 is allowed */
    [SH_SBRELACQPC] = {"sb-rel-acqpc", "SB+REL+ACQPC", 2,
                       {{2, 0, {WREL(VX, 1), RACQPC(VY)}}, {2, 0, {WREL(VY, 2), RACQPC(VX)}}},
                       1},
    /* W(x,1) DMB.ISH W(y,2) || [R(x)] R(y)* DMB.ISH R(x) */
    [SH_MPDMB] = {"mp-dmb", "MP+DMBS", 2,
                  {{2, 0, {WR(VX, 1), WRAFTER(FK_ISH, VY, 2)}},
                   {2, VX + 1, {RDELAY(VY), RDAFTER(FK_ISH, VX)}}},
                  1},
    /* W(x,1) DMB.ISHST W(y,2) || [R(x)] R(y)* DMB.ISHLD R(x) */
    [SH_MPDMBSTLD] = {"mp-dmb-stld", "MP+DMB.ST+DMB.LD", 2,
                      {{2, 0, {WR(VX, 1), WRAFTER(FK_ISHST, VY, 2)}},
                       {2, VX + 1, {RDELAY(VY), RDAFTER(FK_ISHLD, VX)}}},
                      1},
    /* W(x,1) STLR(y,2) || [R(x)] LDAR(y)* R(x) */
    [SH_MPRELACQ] = {"mp-rel-acq", "MP+REL+ACQ", 2,
                     {{2, 0, {WR(VX, 1), WREL(VY, 2)}}, {2, VX + 1, {RACQDELAY(VY), RD(VX)}}},
                     1},
    /* IRIW whose readers use LDAR: forbidden (ARMv8 is other-multi-copy-atomic) */
    [SH_IRIWACQ] = {"iriw-acq", "IRIW+ACQS", 4,
                    {{1, 0, {WR(VX, 1)}},
                     {1, 0, {WR(VY, 2)}},
                     {2, VY + 1, {RACQDELAY(VX), RACQ(VY)}},
                     {2, VX + 1, {RACQDELAY(VY), RACQ(VX)}}},
                    1},
    /* 2+2W with exclusive swaps (LDXR/STXR loops): X(x,1) X(y,2) || X(y,3) X(x,4);
     * the swaps' reads show atomicity (no two read one write) */
    [SH_EXCL] = {"excl", "2+2W+EXCL", 2,
                 {{2, 0, {XSWAP(VX, 1), XSWAP(VY, 2)}}, {2, 0, {XSWAP(VY, 3), XSWAP(VX, 4)}}},
                 1},
};

/* Whether this build runs shape s (aarch64 shapes need the aarch64 client). */
static int shape_here(unsigned s)
{
    return ISA_ARM || !shapes[s].arm;
}

/* How an access is executed. */
enum {
    K_READ,  /* plain load */
    K_WRITE, /* plain store */
    K_FENCE, /* mfence */
    K_XCHG,  /* locked exchange: a store that also reads */
    K_CASW,  /* lock cmpxchg expecting 0: a store if the word still holds 0, else a read */
    K_CASR,  /* lock cmpxchg expecting a value never stored: always a (locked) read */
    /* aarch64 (on aarch64, K_FENCE is DMB ISH, and K_XCHG, K_CASW, K_CASR
     * are LDXR/STXR loops: exclusives as RMWs) */
    K_LDAR,  /* load-acquire */
    K_LDAPR, /* RCpc load-acquire */
    K_STLR,  /* store-release */
    K_DMBLD, /* DMB ISHLD */
    K_DMBST, /* DMB ISHST */
    /* --warm-order first: the round's handshake on its own flag line, not
     * in the history (a location no recorded access touches) */
    K_SIGNAL, /* role 0, after its warm-up read: the others may warm up */
    K_AWAIT,  /* the others, before their warm-up read: wait for role 0's */
    K_DONE,   /* the others, after their warm-up read: count it */
    K_ALLIN,  /* role 0, before its program: wait for every other warm-up */
};

/* Whether an op of this kind reads or writes a variable (a fence and the
 * --warm-order handshake do not). */
static int accesses(unsigned kind)
{
    switch (kind) {
    case K_FENCE:
    case K_DMBLD:
    case K_DMBST:
    case K_SIGNAL:
    case K_AWAIT:
    case K_DONE:
    case K_ALLIN:
        return 0;
    default:
        return 1;
    }
}

/* A value no client write stores: a K_CASR never succeeds. */
#define NEVER UINT64_MAX

struct op2 {
    uint64_t value; /* written, or read */
    uint64_t old;   /* read by an RMW */
    uint8_t kind;
    uint8_t var;
    uint8_t delayed;
    uint8_t ok; /* K_CASW: the store happened */
};

/* One thread's program in one round. */
struct prog {
    struct op2 *ops;
    unsigned n;
    unsigned spin;
};

/* One round. */
struct round2 {
    uint64_t final[2];      /* of x and y */
    unsigned char shape;
    unsigned char own_line; /* x and y on their own lines */
    unsigned char used[NVARS]; /* variable accessed in this round */
    unsigned place[4];      /* thread of each shape thread (not random rounds) */
    unsigned char warm_others; /* --warm-order first: warm-ups role 0 waits for */
};

enum { PLACE_FIRST, PLACE_RANDOM };
enum { SHARE_SAME, SHARE_OWN, SHARE_RANDOM };
enum { FENCE_NONE, FENCE_MFENCE, FENCE_RANDOM };
enum { RMW_NONE, RMW_XCHG, RMW_CMPXCHG, RMW_RANDOM };
enum { WARM_ON, WARM_OFF, WARM_RANDOM };

static const char *const place_names[] = {"first", "random", NULL};
static const char *const sharing_names[] = {"same-line", "own-line", "random", NULL};
/* FENCE_MFENCE is the ISA's full fence: mfence on x86, DMB ISH on aarch64 */
#if defined(__aarch64__)
static const char *const fence_names[] = {"none", "dmb", "random", NULL};
#else
static const char *const fence_names[] = {"none", "mfence", "random", NULL};
#endif
static const char *const rmw_names[] = {"none", "xchg", "cmpxchg", "random", NULL};
static const char *const warm_names[] = {"on", "off", "random", NULL};
enum { WARM_ANY, WARM_FIRST };
static const char *const warm_order_names[] = {"any", "first", NULL};
static unsigned opt_warm_order = WARM_ANY;

static int opt_stream; /* --stream on: each round printed as it ends */
static int opt_plain_barrier; /* --barrier plain: no locked instruction in barriers */
static unsigned opt_shape = SH_MIX, opt_place = PLACE_RANDOM, opt_sharing = SHARE_RANDOM,
                opt_fence = FENCE_NONE, opt_rmw = RMW_NONE, opt_warm = WARM_ON,
                opt_chain = 12, opt_spin = 32, opt_misses = 0;
/* --evict N: after its program, every thread reads N lines of its own
 * buffer, a footprint that pushes the round's lines out of its caches */
static unsigned opt_evict;
/* --evict-at conflict: read k of a round lies on page k of the buffer, at
 * the page offset of the round's line x: in every cache whose set index
 * lies within the page offset (an L2 of 64 sets or fewer: 32 kB of 8 ways,
 * 8 kB of 2), each read misses in x's set, so the replacements meet x while
 * other cores may still be asking for it (the L2's transient states).
 * --evict-at inside: the same reads, but in the program, a share after
 * each access at the page offset of the line it accessed: the thread
 * replaces a line it has just written while the others race for it (a
 * writeback meets their requests; a store meets its own writeback).
 * --evict-at refill: after each access, reads of the same N pages every
 * time (the buffer's first N), at the page offset of the line accessed:
 * after their first misses they stay in the L2 (N lines at one page offset
 * lie in N different sets of an L2 of 512 sets or more), while in a 2-way
 * L1 of 128 sets they fill the accessed line's set; so the next access of
 * the line misses in the L1 and hits in the L2: an L2-to-L1 fill, the
 * window in which the core's partner, a probe or a replacement meets the
 * line (MOESI_AMD_Base's *_F states). With an L2 of 64 sets the N reads
 * fall in one L2 set too, and N of 8 or more replace the line there. */
enum { EVICT_SPREAD, EVICT_CONFLICT, EVICT_INSIDE, EVICT_REFILL };
static const char *const evict_at_names[] = {"spread", "conflict", "inside", "refill", NULL};
static unsigned opt_evict_at = EVICT_SPREAD;
static volatile uint64_t **evict_bufs; /* [thread]: 2 * opt_evict lines or pages */
/* --evict-at refill: reads of the same N pages every time (the buffer's
 * start), at word offset `at` of each page (`step` words a page). */
static void refill_reads(volatile uint64_t *buf, size_t step, size_t at)
{
    for (unsigned k = 0; k < opt_evict; k++)
        (void)buf[(size_t)k * step + at];
}
/* --code-line on: one 64-byte line of an executable mapping holding a
 * function (its first bytes: return the argument plus one) and, 16 bytes
 * on, a word the threads write and read: an L1 that fetches the function
 * asks for a line another core may hold written (MESI_Two_Level's
 * GET_INSTR of a line an L1 owns, Fwd_GET_INSTR) */
static int opt_code_line;
static uint64_t (*code_fn)(uint64_t);
static volatile uint64_t *code_word;
/* --code-line on with --evict-at refill: N more copies of the function, one
 * a page at the code line's page offset, which every thread calls after
 * each access (their fetches replace the code line in the L1I and stay in
 * the L2, so its next fetch refills from the L2), after a store to the code
 * line's word if the access was a plain store, else a load of it */
static uint64_t (**code_fns)(uint64_t);
static volatile uint64_t code_sink;
static unsigned slots; /* struct op2 per thread and round */
static struct prog *progs; /* [round][thread] */
static struct round2 *rounds2;
static size_t line_words = 8; /* 64-byte lines */
static size_t page_lines;     /* lines per page */

/* Words from one --evict read to the next: a line (spread) or a page. */
static size_t evict_step(void)
{
    return opt_evict_at == EVICT_SPREAD ? line_words : page_lines * line_words;
}

/* Words from its page's start to the line of word `a`. */
static size_t page_offset(const volatile uint64_t *a)
{
    return ((uintptr_t)a / 64 % page_lines) * line_words;
}
/* The delay chain divides 1 by 1: values the compiler cannot know, so it
 * keeps every division. (In gem5's x86 microcode, a 64-bit division of 1 by
 * 1 is always the same few micro-ops: the chain's length is predictable.) */
static volatile uint64_t chain_dividend = 1, chain_divisor = 1;

static struct prog *prog_of(unsigned round, unsigned thread)
{
    return progs + (size_t)round * nthreads + thread;
}

/* Word index of line k of the rounds' lines: line 0 of every page is left
 * out (it is the one the main thread writes to map the page). */
static size_t line_word(size_t k)
{
    size_t usable = page_lines - 1;
    return (k / usable * page_lines + 1 + k % usable) * line_words;
}

/* Lines of one round: x's, y's, then one per --delay-misses load. */
static size_t round_lines(void)
{
    return 2 + opt_misses + (opt_warm_order == WARM_FIRST);
}

/* Round r's handshake words (--warm-order first), on the round's last line:
 * [0] role 0 warmed up, [1] how many other roles have. */
static volatile uint64_t *warm_flags(unsigned r)
{
    return mem + line_word((size_t)(r + 1) * round_lines() - 1);
}

/* The words of x, y and z in round r: x on the round's first line, y beside
 * it (same-line) or on the second line (own-line), z always on x's line. */
static volatile uint64_t *var_word(unsigned r, unsigned var)
{
    size_t k = (size_t)r * round_lines();
    if (var == VY && rounds2[r].own_line)
        return mem + line_word(k + 1);
    return mem + line_word(k) + var;
}

static unsigned draw(uint64_t *rng, unsigned n)
{
    return (unsigned)(splitmix64(rng) % n);
}

/* Appends the shape's barrier `fence` (FK_*) before the access, or else a
 * fence (if the fence option says so) before every access but the first;
 * then the access: `ord` (ORD_*) makes it an acquire or release (no RMW
 * replaces those), kind 'X' an exclusive swap. */
static void add_access(struct prog *p, uint64_t *rng, char kind, unsigned var, uint64_t value,
                       int delayed, int locked_ok, unsigned ord, unsigned fence)
{
    if (fence != FK_NONE)
        p->ops[p->n++] = (struct op2){
            .kind = fence == FK_ISH ? K_FENCE : fence == FK_ISHLD ? K_DMBLD : K_DMBST};
    else if (p->n > 0 && p->ops[p->n - 1].kind != K_AWAIT && /* not before the first access */
             (opt_fence == FENCE_MFENCE || (opt_fence == FENCE_RANDOM && draw(rng, 2))))
        p->ops[p->n++] = (struct op2){.kind = K_FENCE};
    unsigned rmw = locked_ok && ord == ORD_PLAIN ? opt_rmw : RMW_NONE;
    if (rmw == RMW_RANDOM)
        rmw = kind == 'W' ? draw(rng, 3) : draw(rng, 2) * RMW_CMPXCHG;
    struct op2 o = {.var = (uint8_t)var,
                    .delayed = (uint8_t)(delayed && (opt_chain > 0 || opt_misses > 0))};
    if (kind == 'X') {
        o.value = value;
        o.kind = K_XCHG;
    } else if (kind == 'W') {
        o.value = value;
        o.kind = ord == ORD_REL        ? K_STLR
                 : rmw == RMW_XCHG    ? K_XCHG
                 : rmw == RMW_CMPXCHG ? K_CASW
                                      : K_WRITE;
    } else {
        o.kind = ord == ORD_ACQ        ? K_LDAR
                 : ord == ORD_ACQPC   ? K_LDAPR
                 : rmw == RMW_CMPXCHG ? K_CASR
                                      : K_READ;
    }
    p->ops[p->n++] = o;
}

/* Draws every round's program (in the main thread, before any other thread
 * exists): shape, placement, sharing, fences, RMWs, warm-up reads, spins. */
static void plan2(void)
{
    uint64_t rng = seed;
    unsigned fitting[SH_COUNT], nfitting = 0;
    for (unsigned s = 0; s < SH_COUNT; s++)
        /* mp+s is MP with the writer's warm-up read too: not drawn by mix,
         * which keeps the draws it had before mp+s existed */
        if (shapes[s].nroles <= nthreads && shape_here(s) && s != SH_MPS)
            fitting[nfitting++] = s;
    unsigned *perm = malloc(nthreads * sizeof *perm);
    if (!perm) {
        fprintf(stderr, "memconform client: out of memory\n");
        exit(1);
    }
    for (unsigned r = 0; r < nrounds; r++) {
        struct round2 *rd = &rounds2[r];
        rd->shape = (unsigned char)(opt_shape == SH_MIX ? fitting[draw(&rng, nfitting)] : opt_shape);
        rd->own_line = (unsigned char)(opt_sharing == SHARE_RANDOM ? draw(&rng, 2)
                                                                   : opt_sharing == SHARE_OWN);
        const struct shape *sh = &shapes[rd->shape];
        for (unsigned t = 0; t < nthreads; t++) {
            struct prog *p = prog_of(r, t);
            p->n = 0;
            p->spin = opt_spin ? draw(&rng, opt_spin + 1) : 0;
        }
        if (sh->nroles == 0) { /* random round: every thread */
            uint64_t counter = 0;
            for (unsigned t = 0; t < nthreads; t++) {
                struct prog *p = prog_of(r, t);
                for (unsigned i = 0; i < nops; i++) {
                    unsigned var = draw(&rng, 2);
                    int write = draw(&rng, 100) < write_pct;
                    add_access(p, &rng, write ? 'W' : 'R', var, write ? ++counter : 0, 0, 1,
                               ORD_PLAIN, FK_NONE);
                    rd->used[var] = 1;
                }
            }
            continue;
        }
        for (unsigned t = 0; t < nthreads; t++)
            perm[t] = t;
        for (unsigned i = 0; i < sh->nroles; i++) {
            unsigned j = opt_place == PLACE_RANDOM ? i + draw(&rng, nthreads - i) : i;
            unsigned tmp = perm[i];
            perm[i] = perm[j];
            perm[j] = tmp;
            rd->place[i] = perm[i];
        }
        /* --warm-order first: role 0's warm-up read before the others', and
         * every warm-up before role 0's program (when role 0 warms up and
         * another role does too); the draws stay those of --warm-order any */
        unsigned char warm0 = 0;
        unsigned others = 0;
        for (unsigned i = 0; i < sh->nroles; i++) {
            const struct role *ro = &sh->role[i];
            struct prog *p = prog_of(r, rd->place[i]);
            const int warm =
                ro->warm && (opt_warm == WARM_ON || (opt_warm == WARM_RANDOM && draw(&rng, 2)));
            const int order = opt_warm_order == WARM_FIRST && i > 0 && warm && warm0;
            if (i == 0)
                warm0 = (unsigned char)warm;
            if (order)
                p->ops[p->n++] = (struct op2){.kind = K_AWAIT};
            if (warm)
                add_access(p, &rng, 'R', ro->warm - 1u, 0, 0, 0, ORD_PLAIN, FK_NONE);
            if (order) {
                p->ops[p->n++] = (struct op2){.kind = K_DONE};
                others++;
            }
            for (unsigned a = 0; a < ro->n; a++) {
                const struct tacc *ac = &ro->acc[a];
                add_access(p, &rng, ac->kind, ac->var, ac->value, ac->delayed, 1, ac->ord,
                           ac->fence);
                rd->used[ac->var] = 1;
            }
        }
        rd->warm_others = (unsigned char)others;
        if (others) {
            /* role 0: signal after its warm-up read (its first op), then wait
             * for the others' before its program */
            struct prog *p = prog_of(r, rd->place[0]);
            memmove(&p->ops[3], &p->ops[1], (p->n - 1) * sizeof p->ops[0]);
            p->ops[1] = (struct op2){.kind = K_SIGNAL};
            p->ops[2] = (struct op2){.kind = K_ALLIN};
            p->n += 2;
        }
    }
    free(perm);
}

/* One division of the delay chain, kept by the compiler. */
#define CHAIN_DIV                                                                                  \
    do {                                                                                           \
        d /= divisor;                                                                              \
        __asm__ volatile("" : "+r"(d));                                                            \
    } while (0)

/* The delay chain: `n` dependent divisions of `d0` by `divisor` (both 1);
 * returns 0, which the compiler cannot know, so an address plus it depends on
 * the chain. Up to 32 divisions are straight-line code entered by one jump
 * (always the same target for a run's fixed `n`): no loop branch whose exit
 * an O3 core could mispredict, which would squash the independent load after
 * the delayed one and re-execute it late, hiding the very reordering the
 * chain is there to allow. Longer chains loop over blocks of 32 first. */
static inline size_t chain_offset(uint64_t d0, uint64_t divisor, unsigned n)
{
    uint64_t d = d0;
    for (; n > 32; n -= 32)
        for (unsigned k = 0; k < 32; k++)
            CHAIN_DIV;
    switch (n) {
    case 32: CHAIN_DIV; /* fall through */
    case 31: CHAIN_DIV; /* fall through */
    case 30: CHAIN_DIV; /* fall through */
    case 29: CHAIN_DIV; /* fall through */
    case 28: CHAIN_DIV; /* fall through */
    case 27: CHAIN_DIV; /* fall through */
    case 26: CHAIN_DIV; /* fall through */
    case 25: CHAIN_DIV; /* fall through */
    case 24: CHAIN_DIV; /* fall through */
    case 23: CHAIN_DIV; /* fall through */
    case 22: CHAIN_DIV; /* fall through */
    case 21: CHAIN_DIV; /* fall through */
    case 20: CHAIN_DIV; /* fall through */
    case 19: CHAIN_DIV; /* fall through */
    case 18: CHAIN_DIV; /* fall through */
    case 17: CHAIN_DIV; /* fall through */
    case 16: CHAIN_DIV; /* fall through */
    case 15: CHAIN_DIV; /* fall through */
    case 14: CHAIN_DIV; /* fall through */
    case 13: CHAIN_DIV; /* fall through */
    case 12: CHAIN_DIV; /* fall through */
    case 11: CHAIN_DIV; /* fall through */
    case 10: CHAIN_DIV; /* fall through */
    case 9: CHAIN_DIV; /* fall through */
    case 8: CHAIN_DIV; /* fall through */
    case 7: CHAIN_DIV; /* fall through */
    case 6: CHAIN_DIV; /* fall through */
    case 5: CHAIN_DIV; /* fall through */
    case 4: CHAIN_DIV; /* fall through */
    case 3: CHAIN_DIV; /* fall through */
    case 2: CHAIN_DIV; /* fall through */
    case 1: CHAIN_DIV; /* fall through */
    default:
        break;
    }
    return (size_t)(d - d0);
}

/* The --delay-misses loads of a round (`line`: its delay lines): each reads a word (0) of a line no
 * one touched, at an address that depends on the previous one; returns 0
 * (unknown to the compiler). Straight-line code, like the chain. */
static inline size_t miss_offset(volatile uint64_t *const *line, unsigned n)
{
    size_t d = 0;
    switch (n) {
    case 4: d = line[3][d]; /* fall through */
    case 3: d = line[2][d]; /* fall through */
    case 2: d = line[1][d]; /* fall through */
    case 1: d = line[0][d]; /* fall through */
    default:
        break;
    }
    return d;
}

static inline void full_fence(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("mfence" ::: "memory");
#elif defined(__aarch64__)
    __asm__ volatile("dmb ish" ::: "memory");
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

#if defined(__aarch64__)
/* The aarch64 accesses, each one instruction (the exclusives one loop), in
 * inline assembly so that the compiler picks none of them: LDAR, LDAPR
 * (FEAT_LRCPC, enabled here for the assembler alone), STLR, DMB ISHLD/ISHST. */
static inline uint64_t arm_ldar(volatile uint64_t *p)
{
    uint64_t v;
    __asm__ volatile("ldar %0, [%1]" : "=r"(v) : "r"(p) : "memory");
    return v;
}

static inline uint64_t arm_ldapr(volatile uint64_t *p)
{
    uint64_t v;
    __asm__ volatile(".arch_extension rcpc\n\tldapr %0, [%1]" : "=r"(v) : "r"(p) : "memory");
    return v;
}

static inline void arm_stlr(volatile uint64_t *p, uint64_t v)
{
    __asm__ volatile("stlr %1, [%0]" : : "r"(p), "r"(v) : "memory");
}

/* An exclusive swap: LDXR, STXR, again until the STXR succeeds; returns
 * what the successful pair's LDXR read (an RMW: no write between them). */
static inline uint64_t arm_swap(volatile uint64_t *p, uint64_t v)
{
    uint64_t old;
    uint32_t failed;
    __asm__ volatile("1: ldxr %0, [%2]\n\t"
                     "stxr %w1, %3, [%2]\n\t"
                     "cbnz %w1, 1b"
                     : "=&r"(old), "=&r"(failed)
                     : "r"(p), "r"(v)
                     : "memory");
    return old;
}

/* An exclusive compare-and-swap: LDXR; if it read `expected`, STXR `v`
 * (again from the LDXR until the STXR succeeds), else CLREX and no store.
 * Returns what the last LDXR read: `expected` iff `v` was stored. */
static inline uint64_t arm_cas(volatile uint64_t *p, uint64_t expected, uint64_t v)
{
    uint64_t old;
    uint32_t failed;
    __asm__ volatile("1: ldxr %0, [%2]\n\t"
                     "cmp %0, %3\n\t"
                     "b.ne 2f\n\t"
                     "stxr %w1, %4, [%2]\n\t"
                     "cbnz %w1, 1b\n\t"
                     "b 3f\n"
                     "2: clrex\n"
                     "3:"
                     : "=&r"(old), "=&r"(failed)
                     : "r"(p), "r"(expected), "r"(v)
                     : "cc", "memory");
    return old;
}

/* The instruction an operation ran, for its thread's `@arm` line (never a
 * handshake: see handshake()). */
static const char *arm_token(const struct op2 *o)
{
    switch (o->kind) {
    case K_WRITE: return "STR";
    case K_FENCE: return "DMB.ISH";
    case K_XCHG: return "LDXR.STXR";
    case K_CASW: return o->ok ? "LDXR.STXR" : "LDXR";
    case K_CASR: return "LDXR";
    case K_LDAR: return "LDAR";
    case K_LDAPR: return "LDAPR";
    case K_STLR: return "STLR";
    case K_DMBLD: return "DMB.ISHLD";
    case K_DMBST: return "DMB.ISHST";
    default: return "LDR"; /* K_READ */
    }
}
#endif

/* Whether an operation is the --warm-order handshake, which no history or
 * @arm line shows. */
static int handshake(const struct op2 *o)
{
    return o->kind == K_SIGNAL || o->kind == K_AWAIT || o->kind == K_DONE || o->kind == K_ALLIN;
}

static void print_op(const struct op2 *o)
{
    const char v = "xyz"[o->var];
    if (handshake(o))
        return;
    switch (o->kind) {
    case K_FENCE:
        fputs(" F", stdout);
        break;
    case K_DMBLD: /* not a full fence: only the @arm line shows it */
    case K_DMBST:
        break;
    case K_WRITE:
    case K_STLR:
        printf(" W(%c,%" PRIu64 ")", v, o->value);
        break;
    case K_XCHG:
        printf(" U(%c,%" PRIu64 ",%" PRIu64 ")", v, o->old, o->value);
        break;
    case K_CASW:
        if (o->ok)
            printf(" U(%c,%" PRIu64 ",%" PRIu64 ")", v, o->old, o->value);
        else /* a failed cmpxchg writes nothing: a read */
            printf(" R(%c,%" PRIu64 ")", v, o->old);
        break;
    default: /* K_READ, K_CASR, K_LDAR, K_LDAPR */
        printf(" R(%c,%" PRIu64 ")", v, o->value);
        break;
    }
}

/* Prints round r as a history: its final values (read now: every thread's
 * last write of the round is done), shape, placement and operations. */
static void print_round2(unsigned r)
{
    struct round2 *rd = &rounds2[r];
    const struct shape *sh = &shapes[rd->shape];
    for (unsigned v = 0; v < 2; v++)
        rd->final[v] = __atomic_load_n(var_word(r, v), __ATOMIC_RELAXED);
    if (r > 0)
        fputs("---\n", stdout);
    printf("@name client-s%" PRIu64 "-r%u\n@round %u\n@shape %s\n@place", seed, r, r, sh->tag);
    unsigned nroles = sh->nroles ? sh->nroles : nthreads;
    for (unsigned i = 0; i < nroles; i++)
        printf(" t%u", sh->nroles ? rd->place[i] : i);
    printf("\n@sharing %s\n", rd->own_line ? "own-line" : "same-line");
    if (opt_stream) {
        /* when the round ended (printed as it ends): CLOCK_MONOTONIC, which
         * gem5's SE mode answers with simulated time */
        struct timespec ts;
        if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
            printf("@time_ns %" PRIu64 "\n", (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
    }
    printf("@final");
    for (unsigned v = 0; v < 2; v++)
        if (rd->used[v])
            printf(" %c=%" PRIu64, v == VX ? 'x' : 'y', rd->final[v]);
    putchar('\n');
#if defined(__aarch64__)
    /* each thread's instructions: the thread lines below are their plain
     * .hist view (DMB ISH as F, DMB ISHLD/ISHST left out) */
    for (unsigned t = 0; t < nthreads; t++) {
        const struct prog *p = prog_of(r, t);
        printf("@arm t%u", t);
        for (unsigned i = 0; i < p->n; i++)
            if (!handshake(&p->ops[i]))
                printf(" %s", arm_token(&p->ops[i]));
        putchar('\n');
    }
#endif
    for (unsigned t = 0; t < nthreads; t++) {
        const struct prog *p = prog_of(r, t);
        printf("t%u:", t);
        for (unsigned i = 0; i < p->n; i++)
            print_op(&p->ops[i]);
        putchar('\n');
    }
}

static void run2(unsigned thread)
{
    struct barrier_local bar = {0, thread, 0};
    const uint64_t dividend = chain_dividend, divisor = chain_divisor;
    const unsigned chain = opt_chain, misses = opt_misses;
    barrier(&bar); /* every thread has started */
    for (unsigned r = 0; r < nrounds; r++) {
        const struct prog *p = prog_of(r, thread);
        volatile uint64_t *const w[NVARS] = {var_word(r, VX), var_word(r, VY), var_word(r, VZ)};
        volatile uint64_t *dl[4];
        for (unsigned j = 0; j < misses; j++)
            dl[j] = mem + line_word((size_t)r * round_lines() + 2 + j);
        const unsigned n = p->n;
        struct op2 *o = p->ops;
        /* --evict: this round's stretch of the buffer (its two halves in
         * turn, so every read misses and replaces a line older than the
         * round's); inside, a share of its reads after each access */
        const size_t step = evict_step();
        volatile uint64_t *const stretch =
            opt_evict ? evict_bufs[thread] + (size_t)(r % 2) * opt_evict * step : NULL;
        const int inside = opt_evict && opt_evict_at == EVICT_INSIDE;
        const int refill = opt_evict && opt_evict_at == EVICT_REFILL;
        const unsigned per_op = n ? (opt_evict + n - 1) / n : 0;
        unsigned inside_k = 0;
        barrier(&bar);
        for (unsigned s = p->spin; s > 0; s--)
            __asm__ volatile("");
        for (unsigned i = 0; i < n; i++, o++) {
            volatile uint64_t *a = w[o->var];
            if (o->delayed)
                a += chain_offset(dividend, divisor, chain) + miss_offset(dl, misses);
            switch (o->kind) {
            case K_READ:
                o->value = __atomic_load_n(a, __ATOMIC_RELAXED);
                break;
            case K_WRITE:
                __atomic_store_n(a, o->value, __ATOMIC_RELAXED);
                break;
            case K_FENCE:
                full_fence();
                break;
            case K_SIGNAL:
                __atomic_store_n(&warm_flags(r)[0], 1, __ATOMIC_RELEASE);
                break;
            case K_AWAIT:
                while (!__atomic_load_n(&warm_flags(r)[0], __ATOMIC_ACQUIRE))
                    __asm__ volatile("");
                break;
            case K_DONE:
                __atomic_add_fetch(&warm_flags(r)[1], 1, __ATOMIC_ACQ_REL);
                break;
            case K_ALLIN:
                while (__atomic_load_n(&warm_flags(r)[1], __ATOMIC_ACQUIRE) <
                       rounds2[r].warm_others)
                    __asm__ volatile("");
                break;
#if defined(__aarch64__)
            case K_XCHG:
                o->old = arm_swap(a, o->value);
                break;
            case K_CASW:
                o->old = arm_cas(a, 0, o->value);
                o->ok = o->old == 0;
                break;
            case K_CASR:
                o->value = arm_cas(a, NEVER, NEVER);
                break;
            case K_LDAR:
                o->value = arm_ldar(a);
                break;
            case K_LDAPR:
                o->value = arm_ldapr(a);
                break;
            case K_STLR:
                arm_stlr(a, o->value);
                break;
            case K_DMBLD:
                __asm__ volatile("dmb ishld" ::: "memory");
                break;
            case K_DMBST:
                __asm__ volatile("dmb ishst" ::: "memory");
                break;
#else
            case K_XCHG:
                o->old = __atomic_exchange_n(a, o->value, __ATOMIC_SEQ_CST);
                break;
            case K_CASW: {
                uint64_t expected = 0;
                o->ok = __atomic_compare_exchange_n(a, &expected, o->value, 0, __ATOMIC_SEQ_CST,
                                                    __ATOMIC_SEQ_CST);
                o->old = expected;
                break;
            }
            case K_CASR: {
                uint64_t expected = NEVER;
                __atomic_compare_exchange_n(a, &expected, NEVER, 0, __ATOMIC_SEQ_CST,
                                            __ATOMIC_SEQ_CST);
                o->value = expected;
                break;
            }
            default: /* the aarch64 kinds: never planned here */
                break;
#endif
            }
            if (inside) {
                size_t at = page_offset(w[o->var]);
                for (unsigned k = 0; k < per_op && inside_k < opt_evict; k++, inside_k++)
                    (void)stretch[(size_t)inside_k * step + at];
            } else if (refill && accesses(o->kind)) {
                refill_reads(evict_bufs[thread], step, page_offset(a));
                if (opt_code_line) {
                    /* the code line: a store of its word after a store,
                     * else a load, then its fetch, then fetches and reads
                     * that replace it in the L1I and the L1D */
                    uint64_t v;
                    if (o->kind == K_WRITE) {
                        *code_word = i;
                        v = i;
                    } else {
                        v = *code_word;
                    }
                    v = code_fn(v);
                    for (unsigned k = 0; k < opt_evict; k++)
                        v = code_fns[k](v);
                    code_sink = v;
                    refill_reads(evict_bufs[thread], step, page_offset(code_word));
                }
            }
        }
        if (opt_code_line) {
            /* the even threads write the line before they fetch it, the odd
             * ones fetch it first: stores and fetches of one line race. With
             * a conflict or inside footprint the writers then read half as
             * many lines again at the code line's set, from the stretch's
             * end: the line they hold written is replaced (by the L1, or the
             * L2) while its fetch, theirs or another core's, is on the way */
            if (thread % 2 == 0) {
                *code_word = r;
                if (opt_evict && opt_evict_at != EVICT_SPREAD) {
                    const size_t at = page_offset(code_word);
                    for (unsigned k = 0; k < (opt_evict + 1) / 2; k++)
                        (void)stretch[(size_t)(opt_evict - 1 - k) * step + at];
                }
            }
            code_sink = code_fn(*code_word);
        }
        if (opt_evict && !inside && !refill) {
            /* the footprint after the program: lines in a row, or one a
             * page at x's offset (conflict) */
            size_t at = opt_evict_at == EVICT_CONFLICT ? page_offset(w[VX]) : 0;
            for (unsigned k = 0; k < opt_evict; k++)
                (void)stretch[(size_t)k * step + at];
        }
        if (opt_stream) {
            /* the round is over for every thread; thread 0 prints it while
             * the others wait at the next round's barrier */
            barrier(&bar);
            if (thread == 0) {
                print_round2(r);
                if (fflush(stdout) != 0) {
                    perror("memconform client: writing the history");
                    exit(1);
                }
            }
        }
    }
    barrier(&bar);
}

/* The header's delay-misses, barrier, evict, evict-at, code-line and
 * warm-order fields, when not the defaults. */
static const char *misses_field(void)
{
    static char field[128];
    int n = 0;
    if (opt_misses)
        n = snprintf(field, sizeof field, " delay-misses=%u", opt_misses);
    if (opt_plain_barrier)
        n += snprintf(field + n, sizeof field - (size_t)n, " barrier=plain");
    if (opt_evict)
        n += snprintf(field + n, sizeof field - (size_t)n, " evict=%u", opt_evict);
    if (opt_evict_at != EVICT_SPREAD)
        n += snprintf(field + n, sizeof field - (size_t)n, " evict-at=%s",
                      evict_at_names[opt_evict_at]);
    if (opt_code_line)
        n += snprintf(field + n, sizeof field - (size_t)n, " code-line=on");
    if (opt_warm_order == WARM_FIRST)
        snprintf(field + n, sizeof field - (size_t)n, " warm-order=first");
    return field;
}

static void *worker2(void *arg)
{
    run2((unsigned)(uintptr_t)arg);
    return NULL;
}

static unsigned choice(const char *s, const char *const *names, const char *what)
{
    for (unsigned i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    usage(what);
    return 0;
}


static int main_v2(int argc, char **argv)
{
    int have_threads = 0;
    nrounds = 1;
    seed = 1;
    nops = 4;
    write_pct = 50;
    for (int i = 1; i < argc; i++) {
        const char *name = argv[i], *value;
        const char *eq = strchr(name, '=');
        char key[32];
        if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0) {
            printf(USAGE, MAX_THREADS, MAX_THREADS);
            exit(0);
        }
        if (strncmp(name, "--", 2) != 0)
            usage("expected an option --NAME VALUE (or a v1 command line: THREADS OPS ...)");
        if (eq) { /* --name=value */
            size_t len = (size_t)(eq - name);
            if (len >= sizeof key)
                usage("unknown option (too long)");
            memcpy(key, name, len);
            key[len] = '\0';
            name = key;
            value = eq + 1;
        } else {
            if (i + 1 >= argc)
                usage("an option without its value");
            value = argv[++i];
        }
        if (strcmp(name, "--threads") == 0) {
            nthreads = (unsigned)number(value, "--threads must be 1..4096", 1, MAX_THREADS);
            have_threads = 1;
        } else if (strcmp(name, "--rounds") == 0) {
            nrounds = (unsigned)number(value, "--rounds must be >= 1", 1, UINT32_MAX);
        } else if (strcmp(name, "--seed") == 0) {
            seed = number(value, "--seed must be an unsigned 64-bit number", 0, UINT64_MAX);
        } else if (strcmp(name, "--shape") == 0) {
            static const char *const names[] = {
                "random",     "mp",           "sb",     "lb",          "iriw",
                "wrc",        "2+2w",         "mp+sm",  "mp+s",        "sb-rel-acq",  "sb-rel-acqpc",
                "mp-dmb",     "mp-dmb-stld",  "mp-rel-acq", "iriw-acq", "excl",
                "mix",        NULL};
            opt_shape = choice(value, names,
                               "--shape must be random, mp, sb, lb, iriw, wrc, 2+2w, mp+sm, mp+s, "
                               "sb-rel-acq, sb-rel-acqpc, mp-dmb, mp-dmb-stld, mp-rel-acq, "
                               "iriw-acq, excl or mix");
            if (opt_shape != SH_MIX && !shape_here(opt_shape))
                usage("this --shape is an aarch64 one: it needs the aarch64 client");
        } else if (strcmp(name, "--place") == 0) {
            opt_place = choice(value, place_names, "--place must be first or random");
        } else if (strcmp(name, "--sharing") == 0) {
            opt_sharing = choice(value, sharing_names, "--sharing must be same-line, own-line or random");
        } else if (strcmp(name, "--fence") == 0) {
            opt_fence = choice(value, fence_names,
                               ISA_ARM ? "--fence must be none, dmb or random"
                                       : "--fence must be none, mfence or random");
        } else if (strcmp(name, "--rmw") == 0) {
            opt_rmw = choice(value, rmw_names, "--rmw must be none, xchg, cmpxchg or random");
        } else if (strcmp(name, "--warm-up") == 0) {
            opt_warm = choice(value, warm_names, "--warm-up must be on, off or random");
        } else if (strcmp(name, "--warm-order") == 0) {
            opt_warm_order = choice(value, warm_order_names, "--warm-order must be any or first");
        } else if (strcmp(name, "--delay-misses") == 0) {
            opt_misses = (unsigned)number(value, "--delay-misses must be 0..4", 0, 4);
        } else if (strcmp(name, "--code-line") == 0) {
            static const char *const onoff[] = {"off", "on", NULL};
            opt_code_line = (int)choice(value, onoff, "--code-line must be on or off");
        } else if (strcmp(name, "--evict") == 0) {
            opt_evict = (unsigned)number(value, "--evict must be 0..65536", 0, 65536);
        } else if (strcmp(name, "--evict-at") == 0) {
            opt_evict_at =
                choice(value, evict_at_names,
                       "--evict-at must be spread, conflict, inside or refill");
        } else if (strcmp(name, "--delay-chain") == 0) {
            opt_chain = (unsigned)number(value, "--delay-chain must be 0..100000", 0, 100000);
        } else if (strcmp(name, "--spin") == 0) {
            opt_spin = (unsigned)number(value, "--spin must be 0..1000000000", 0, 1000000000);
        } else if (strcmp(name, "--ops") == 0) {
            nops = (unsigned)number(value, "--ops must be 1..100000", 1, 100000);
        } else if (strcmp(name, "--writes") == 0) {
            write_pct = (unsigned)number(value, "--writes must be 0..100", 0, 100);
        } else if (strcmp(name, "--barrier") == 0) {
            static const char *const names[] = {"atomic", "plain", NULL};
            opt_plain_barrier = (int)choice(value, names, "--barrier must be atomic or plain");
        } else if (strcmp(name, "--stream") == 0) {
            static const char *const names[] = {"off", "on", NULL};
            opt_stream = (int)choice(value, names, "--stream must be on or off");
        } else {
            static char msg[80];
            snprintf(msg, sizeof msg, "unknown option %.40s", name);
            usage(msg);
        }
    }
    if (!have_threads)
        usage("--threads is required (gem5 SE: equal to -n)");
    if (opt_evict_at == EVICT_REFILL && (opt_evict < 2 || opt_evict > 64))
        usage("--evict-at refill reads --evict N lines after every access: N must be 2..64");
    if (opt_shape != SH_MIX && shapes[opt_shape].nroles > nthreads) {
        fprintf(stderr, "memconform client: shape %s needs %u threads (--threads %u)\n",
                shapes[opt_shape].opt, shapes[opt_shape].nroles, nthreads);
        exit(2);
    }

    long page = sysconf(_SC_PAGESIZE);
    page_lines = page >= 128 ? (size_t)page / 64 : 64;
    slots = 9; /* warm-up + 3 accesses (MP+SM) + a fence between each two + 2 handshakes */
    if (2 * nops - 1 > slots)
        slots = 2 * nops - 1;
    size_t nlines = (size_t)nrounds * round_lines();
    size_t npages = nlines / (page_lines - 1) + 1;
    size_t nprog = (size_t)nrounds * nthreads;
    if (npages > SIZE_MAX / 64 / page_lines || nprog > SIZE_MAX / sizeof(struct op2) / slots) {
        fprintf(stderr, "memconform client: out of memory\n");
        return 1;
    }
    size_t bytes = npages * page_lines * 64;
    /* fresh anonymous memory is zero; lines are untouched until their round,
     * except line 0 of each page, written here to map the page */
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct op2 *all = calloc(nprog * slots, sizeof *all);
    progs = calloc(nprog, sizeof *progs);
    rounds2 = calloc(nrounds, sizeof *rounds2);
    pthread_t *tids = calloc(nthreads, sizeof(pthread_t));
    if (m == MAP_FAILED || !all || !progs || !rounds2 || !tids) {
        fprintf(stderr, "memconform client: out of memory\n");
        return 1;
    }
    mem = m;
    if (opt_evict) {
        /* each thread's own buffer, apart from the rounds' lines */
        evict_bufs = calloc(nthreads, sizeof *evict_bufs);
        for (unsigned t = 0; evict_bufs && t < nthreads; t++) {
            size_t unit = evict_step() * sizeof(uint64_t);
            void *e = mmap(NULL, (size_t)2 * opt_evict * unit, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (e == MAP_FAILED) {
                fprintf(stderr, "memconform client: out of memory\n");
                return 1;
            }
            evict_bufs[t] = e;
            /* map its pages now, before the rounds: a page fault in gem5 SE
             * writes the page table functionally (see settled_write) */
            if (opt_evict_at != EVICT_SPREAD)
                for (size_t pg = 0; pg < (size_t)2 * opt_evict; pg++)
                    ((volatile uint64_t *)e)[pg * page_lines * line_words] = 0;
        }
        if (!evict_bufs) {
            fprintf(stderr, "memconform client: out of memory\n");
            return 1;
        }
    }
    if (opt_code_line) {
        /* return x + 1: x86-64 `lea 1(%rdi),%rax; ret`, aarch64 `add x0,
         * x0, #1; ret` */
#if ISA_ARM
        static const uint32_t code[] = {0x91000400u, 0xd65f03c0u};
#else
        static const unsigned char code[] = {0x48, 0x8d, 0x47, 0x01, 0xc3};
#endif
        void *c = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (c == MAP_FAILED) {
            perror("memconform client: an executable page for --code-line");
            return 1;
        }
        memcpy(c, code, sizeof code);
        __builtin___clear_cache((char *)c, (char *)c + 64);
        code_fn = (uint64_t(*)(uint64_t))c;
        code_word = (volatile uint64_t *)((char *)c + 16);
        if (opt_evict_at == EVICT_REFILL) {
            const size_t pg = page_lines * 64;
            char *f = mmap(NULL, (size_t)opt_evict * pg, PROT_READ | PROT_WRITE | PROT_EXEC,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            code_fns = malloc(opt_evict * sizeof *code_fns);
            if (f == MAP_FAILED || !code_fns) {
                perror("memconform client: executable pages for --code-line with refill");
                return 1;
            }
            for (unsigned k = 0; k < opt_evict; k++) {
                char *fk = f + (size_t)k * pg + ((uintptr_t)c % pg);
                memcpy(fk, code, sizeof code);
                __builtin___clear_cache(fk, fk + 64);
                code_fns[k] = (uint64_t(*)(uint64_t))(void *)fk;
            }
        }
    }
    if (opt_plain_barrier) {
        void *a = NULL;
        if (posix_memalign(&a, 64, (size_t)nthreads * ARRIVED_STRIDE * sizeof(uint64_t)) != 0) {
            fprintf(stderr, "memconform client: out of memory\n");
            return 1;
        }
        memset(a, 0, (size_t)nthreads * ARRIVED_STRIDE * sizeof(uint64_t));
        barrier_arrived = a;
    }
    for (size_t pg = 0; pg < npages; pg++)
        mem[pg * page_lines * line_words] = 0;
    for (size_t i = 0; i < nprog; i++)
        progs[i].ops = all + i * slots;
    plan2();

    settled_stdout();
    printf("# memconform-client v2 threads=%u rounds=%u seed=%" PRIu64
           " shape=%s place=%s sharing=%s fence=%s rmw=%s warm-up=%s delay-chain=%u"
           " spin=%u ops=%u writes=%u%s%s%s\n",
           nthreads, nrounds, seed, opt_shape == SH_MIX ? "mix" : shapes[opt_shape].opt,
           place_names[opt_place], sharing_names[opt_sharing], fence_names[opt_fence],
           rmw_names[opt_rmw], warm_names[opt_warm], opt_chain, opt_spin, nops, write_pct,
           opt_stream ? " stream=on" : "", misses_field(), ISA_ARM ? " isa=aarch64" : "");
    if (opt_stream && fflush(stdout) != 0) {
        perror("memconform client: writing the history");
        return 1;
    }
    for (unsigned t = 1; t < nthreads; t++) {
        int e = pthread_create(&tids[t], NULL, worker2, (void *)(uintptr_t)t);
        if (e) {
            fprintf(stderr,
                    "memconform client: cannot create thread %u of %u: %s"
                    " (gem5 SE: run with -n %u, one CPU per thread)\n",
                    t, nthreads, strerror(e), nthreads);
            return 1;
        }
    }
    worker2((void *)(uintptr_t)0);
    for (unsigned t = 1; t < nthreads; t++)
        pthread_join(tids[t], NULL);
    free(tids);
    if (!opt_stream)
        for (unsigned r = 0; r < nrounds; r++)
            print_round2(r);
    printf("# memconform-client end histories=%u\n", nrounds);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("memconform client: writing the history");
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && argv[1][0] == '-')
        return main_v2(argc, argv);
    return main_v1(argc, argv);
}
