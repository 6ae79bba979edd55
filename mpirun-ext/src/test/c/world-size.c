/*
 * A plain MPI program that knows nothing of mpirun-ft (ProgramWorldIT): it checks the world it
 * was given, as a test suite's programs do, and so fails if the launcher adds processes to it.
 *
 *   world-size N      MPI_COMM_WORLD must hold exactly N processes (the -np it was started with)
 *   world-size even   it pairs the ranks up (rank r with r^1), so the count must be even
 *
 * Every rank sees the same size, so every rank decides alike: it says why on stderr (rank 0),
 * finalizes and exits 1, with no MPI_Abort that would leave the launcher guessing.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int status = 0;
    if (argc != 2) {
        if (rank == 0) {
            fprintf(stderr, "usage: world-size N|even\n");
        }
        status = 2;
    } else if (strcmp(argv[1], "even") == 0) {
        if (size % 2 != 0) {
            if (rank == 0) {
                fprintf(stderr, "WORLD FAILED: %d processes in MPI_COMM_WORLD, this program pairs them up and needs an even count\n", size);
            }
            status = 1;
        } else {
            int partner = rank ^ 1, heard = -1;
            MPI_Sendrecv(&rank, 1, MPI_INT, partner, 0, &heard, 1, MPI_INT, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            int paired = heard == partner, pairs = 0;
            MPI_Reduce(&paired, &pairs, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                printf("WORLD OK size=%d pairs=%d\n", size, pairs / 2);
            }
        }
    } else {
        int expected = atoi(argv[1]);
        if (size != expected) {
            if (rank == 0) {
                fprintf(stderr, "WORLD FAILED: %d processes in MPI_COMM_WORLD, expected %d (-np)\n", size, expected);
            }
            status = 1;
        } else {
            int one = 1, counted = 0;
            MPI_Allreduce(&one, &counted, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            if (rank == 0) {
                printf("WORLD OK size=%d counted=%d\n", size, counted);
            }
        }
    }
    fflush(stdout);
    MPI_Finalize();
    return status;
}
