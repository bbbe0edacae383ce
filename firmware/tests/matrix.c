/* matrix: integer and double matrix multiplication, transpose, LU-free
 * determinant by Gaussian elimination with exact (dyadic) values, and a
 * 2-D stencil. */
#define CHECK_USE_STDIO
#include "check.h"

#define N 12

static int32_t A[N][N], B[N][N], C[N][N];
static double D[N][N], E[N][N], F[N][N];

int main(void)
{
    int i, j, k;
    uint32_t h = 0;
    int64_t trace = 0;

    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            A[i][j] = (i * 7 + j * 3) % 11 - 5;
            B[i][j] = (i * j + 2 * i + 1) % 13 - 6;
        }
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            int32_t s = 0;
            for (k = 0; k < N; k++)
                s += A[i][k] * B[k][j];
            C[i][j] = s;
        }
    for (i = 0; i < N; i++) {
        trace += C[i][i];
        for (j = 0; j < N; j++)
            h = h * 31u + (uint32_t)C[i][j];
    }
    printf("int matmul: trace %d hash 0x%08x C[0][0..3] = %d %d %d %d\n", (int)trace, (unsigned)h, (int)C[0][0],
           (int)C[0][1], (int)C[0][2], (int)C[0][3]);
    /* (AB)^T == B^T A^T */
    {
        int ok = 1;
        for (i = 0; i < N; i++)
            for (j = 0; j < N; j++) {
                int32_t s = 0;
                for (k = 0; k < N; k++)
                    s += B[k][i] * A[j][k];
                if (s != C[j][i])
                    ok = 0;
            }
        CHECK(ok);
        printf("transpose identity: %s\n", ok ? "ok" : "broken");
    }

    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            D[i][j] = (double)((i + 1) * (j + 2) % 9) * 0.25 - 1.0;
            E[i][j] = (i == j) ? 2.0 : (double)((i * 3 + j) % 5) * 0.125;
        }
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            double s = 0.0;
            for (k = 0; k < N; k++)
                s += D[i][k] * E[k][j];
            F[i][j] = s;
        }
    {
        double sum = 0.0;
        for (i = 0; i < N; i++)
            for (j = 0; j < N; j++)
                sum += F[i][j] * (double)(i - j);
        printf("double matmul: weighted sum %.17g F[3][4] %.17g\n", sum, F[3][4]);
    }
    /* determinant of E by Gaussian elimination (partial pivoting) */
    {
        double M[N][N], det = 1.0;
        for (i = 0; i < N; i++)
            for (j = 0; j < N; j++)
                M[i][j] = E[i][j];
        for (k = 0; k < N; k++) {
            int p = k;
            for (i = k + 1; i < N; i++)
                if ((M[i][k] < 0 ? -M[i][k] : M[i][k]) > (M[p][k] < 0 ? -M[p][k] : M[p][k]))
                    p = i;
            if (p != k) {
                for (j = 0; j < N; j++) {
                    double t = M[k][j];
                    M[k][j] = M[p][j];
                    M[p][j] = t;
                }
                det = -det;
            }
            det *= M[k][k];
            for (i = k + 1; i < N; i++) {
                double f = M[i][k] / M[k][k];
                for (j = k; j < N; j++)
                    M[i][j] -= f * M[k][j];
            }
        }
        printf("det(E) = %.12g\n", det);
    }
    /* 5-point stencil, 20 iterations */
    {
        static int32_t g[2][16][16];
        int t, cur = 0;
        uint32_t sh = 0;
        for (i = 0; i < 16; i++)
            for (j = 0; j < 16; j++)
                g[0][i][j] = (i == 8 && j == 8) ? 1 << 20 : 0;
        for (t = 0; t < 20; t++) {
            for (i = 1; i < 15; i++)
                for (j = 1; j < 15; j++)
                    g[!cur][i][j] = (4 * g[cur][i][j] + g[cur][i - 1][j] + g[cur][i + 1][j] + g[cur][i][j - 1] +
                                     g[cur][i][j + 1]) / 8;
            cur = !cur;
        }
        for (i = 0; i < 16; i++)
            for (j = 0; j < 16; j++)
                sh = sh * 31u + (uint32_t)g[cur][i][j];
        printf("stencil: centre %d hash 0x%08x\n", (int)g[cur][8][8], (unsigned)sh);
    }
    return check_done("matrix");
}
