/* planted: host
 * from: tests/accsuite/kmeans/kmeans.c
 * flags: -I tests/accsuite/utilities -I tests/accsuite/kmeans -DMINI_DATASET
 * change: `update host(membership)` deleted */
/**
 * kmeans.c: k-means clustering (Rodinia-style)
 * OpenACC version: the points stay on the device between iterations (enter
 * data); the nearest center is found with a routine seq distance function,
 * leaving the cluster loop early on an exact hit; the new centers are
 * computed on the host and sent back with update device.
 */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <float.h>
#ifdef _OPENACC
#include <openacc.h>
#endif

#include "kmeans.h"

#pragma acc routine seq
float euclid_dist_2(const float *pt1, const float *pt2, int numdims)
{
  int i;
  float ans = 0.0;

  for (i = 0; i < numdims; i++)
    ans += (pt1[i] - pt2[i]) * (pt1[i] - pt2[i]);

  return ans;
}

static void dump_f(const char *name, const float *a, int n)
{
  int i;
  printf("== %s %d\n", name, n);
  for (i = 0; i < n; i++)
    printf("%.9g\n", a[i]);
}

static void dump_i(const char *name, const int *a, int n)
{
  int i;
  printf("== %s %d\n", name, n);
  for (i = 0; i < n; i++)
    printf("%d\n", a[i]);
}

int main(int argc, char **argv)
{
  int npoints = NPOINTS, nfeatures = NFEATURES, nclusters = NCLUSTERS;
  int i, j, k, iter, index, delta;
  float min_dist, dist;
  float *feature, *clusters, *new_centers;
  int *membership, *new_centers_len, *alive;

  feature = (float *)malloc(npoints * nfeatures * sizeof(float));
  clusters = (float *)malloc(nclusters * nfeatures * sizeof(float));
  new_centers = (float *)malloc(nclusters * nfeatures * sizeof(float));
  membership = (int *)malloc(npoints * sizeof(int));
  new_centers_len = (int *)malloc(nclusters * sizeof(int));
  alive = (int *)malloc(nclusters * sizeof(int));

#ifdef _OPENACC
  fprintf(stderr, "%d OpenACC device(s)\n", acc_get_num_devices(acc_get_device_type()));
#endif

  for (i = 0; i < npoints; i++) {
    membership[i] = -1;
    for (j = 0; j < nfeatures; j++)
      feature[i * nfeatures + j] = (float)((i * 7 + j * 3 + (i / 5) * j) % 17) / 16.0f;
  }
  /* the first points are the initial centers */
  for (k = 0; k < nclusters; k++) {
    alive[k] = 1;
    for (j = 0; j < nfeatures; j++)
      clusters[k * nfeatures + j] = feature[(k * 3) * nfeatures + j];
  }

  #pragma acc enter data copyin(feature[0:npoints*nfeatures], membership[0:npoints])
  #pragma acc enter data copyin(clusters[0:nclusters*nfeatures], alive[0:nclusters])

  for (iter = 0; iter < NITERS; iter++) {
    delta = 0;

    #pragma acc parallel loop present(feature, clusters, membership, alive) \
	private(min_dist, dist, index) reduction(+:delta)
    for (i = 0; i < npoints; i++) {
      min_dist = FLT_MAX;
      index = 0;
      for (k = 0; k < nclusters; k++) {
	if (!alive[k])
	  continue;
	dist = euclid_dist_2(&feature[i * nfeatures], &clusters[k * nfeatures], nfeatures);
	if (dist < min_dist) {
	  min_dist = dist;
	  index = k;
	}
	if (dist == 0.0f)
	  break;
      }
      if (membership[i] != index)
	delta += 1;
      membership[i] = index;
    }


    /* new centers on the host */
    for (k = 0; k < nclusters; k++) {
      new_centers_len[k] = 0;
      for (j = 0; j < nfeatures; j++)
	new_centers[k * nfeatures + j] = 0.0f;
    }
    for (i = 0; i < npoints; i++) {
      index = membership[i];
      new_centers_len[index]++;
      for (j = 0; j < nfeatures; j++)
	new_centers[index * nfeatures + j] += feature[i * nfeatures + j];
    }
    for (k = 0; k < nclusters; k++) {
      alive[k] = new_centers_len[k] > 0;
      for (j = 0; j < nfeatures; j++)
	if (new_centers_len[k] > 0)
	  clusters[k * nfeatures + j] = new_centers[k * nfeatures + j] / new_centers_len[k];
    }
    #pragma acc update device(clusters[0:nclusters*nfeatures], alive[0:nclusters])

    printf("== delta_%d 1\n%d\n", iter, delta);
  }

  #pragma acc exit data delete(feature[0:npoints*nfeatures], clusters[0:nclusters*nfeatures])
  #pragma acc exit data copyout(membership[0:npoints]) delete(alive[0:nclusters])

  dump_i("membership", membership, npoints);
  dump_f("clusters", clusters, nclusters * nfeatures);

  free(feature);
  free(clusters);
  free(new_centers);
  free(membership);
  free(new_centers_len);
  free(alive);
  return 0;
}
