/*
 * An MPI program that knows nothing of mpirun-ft (TransparentIT): a ring. Each iteration every
 * rank passes its vector to its right neighbour, mixes what it got into its own, and all ranks
 * agree on a sum. Rank 0 prints "ITER i SUM", and at the end "CHECKSUM c". The same arithmetic
 * as TransparentRing.java, so both print the same checksums.
 *
 * Usage: transparent-ring ITERATIONS PACE_MS [UNPACED_WHEN]
 * Once the file UNPACED_WHEN exists, the ring stops sleeping: a test that has seen what the pace
 * gave it time for need not wait for the rest. The sleep changes no value.
 */
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  int iterations = argc > 1 ? atoi(argv[1]) : 40, pace = argc > 2 ? atoi(argv[2]) : 150;
  const char *unpaced_when = argc > 3 ? argv[3] : NULL;
  const int n = 4096;
  MPI_Init(&argc, &argv);
  /* A rank writing to a lost peer must get an error, not die of SIGPIPE. */
  signal(SIGPIPE, SIG_IGN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  uint64_t *state = malloc(n * sizeof *state), *in = malloc(n * sizeof *in);
  for (int i = 0; i < n; i++) state[i] = (uint64_t)rank * 1000003u + (uint64_t)i;
  for (int it = 0; it < iterations; it++) {
    MPI_Sendrecv(state, n, MPI_UINT64_T, (rank + 1) % size, 0, in, n, MPI_UINT64_T, (rank + size - 1) % size, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    uint64_t local = 0, all;
    for (int i = 0; i < n; i++) {
      state[i] = state[i] * 6364136223846793005ull + in[i] + (uint64_t)it;
      local ^= state[i];
    }
    local = local * (uint64_t)(rank + 3) + state[it % n];
    MPI_Allreduce(&local, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
      printf("ITER %d %llu\n", it, (unsigned long long)all);
      fflush(stdout);
    }
    if (pace > 0 && unpaced_when != NULL && access(unpaced_when, F_OK) == 0) pace = 0;
    struct timespec pause = {pace / 1000, (pace % 1000) * 1000000L};
    if (pace > 0) nanosleep(&pause, NULL);
  }
  uint64_t local = 0, sum = 0;
  for (int i = 0; i < n; i++) local += state[i];
  MPI_Reduce(&local, &sum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("CHECKSUM %llu\n", (unsigned long long)sum);
  free(state);
  free(in);
  MPI_Finalize();
  return 0;
}
