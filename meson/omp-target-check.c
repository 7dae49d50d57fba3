/* SPDX-License-Identifier: BSD-3-Clause */
/* Configure-time check: can the compiler build and link a real offload region? */
#include <omp.h>

int main(void)
{
	int x = 0;
#pragma omp target map(tofrom : x)
	x = 1;
	return x == 1 && omp_get_num_devices() >= 0 ? 0 : 1;
}
