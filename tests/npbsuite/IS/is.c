/*************************************************************************
 *                                                                       *
 *        N  A  S     P A R A L L E L     B E N C H M A R K S  3.3       *
 *                                                                       *
 *                                  I S                                  *
 *                                                                       *
 *************************************************************************
 *                                                                       *
 *   Integer sort: the ranking of a sequence of uniformly random keys,  *
 *   in the structure of the OpenACC C ports of NPB 3.3.  The keys stay *
 *   on the device for the whole run: every ranking clears the          *
 *   histogram, counts the keys (atomically), turns the counts into     *
 *   ranks with a prefix sum, and the host checks five test keys;       *
 *   full_verify sorts the keys by their ranks and counts, on the       *
 *   device, the keys out of order.                                     *
 *                                                                       *
 *************************************************************************/

#include "npbparams.h"
#include <stdlib.h>
#include <stdio.h>
#include "type.h"
#include "timers.h"
#include "print_results.h"
#ifdef _OPENACC
#include <openacc.h>
#endif


/*****************************************************************/
/* For serial IS, buckets are not really req'd to solve NPB1 IS  */
/* spec, but their use on some machines improves performance, on */
/* other machines the use of buckets compromises performance,    */
/* probably because it is extra computation which is not req'd.  */
/* This version ranks without buckets.                           */
/*****************************************************************/


/******************/
/* default values */
/******************/
#ifndef CLASS
#define CLASS 'S'
#endif


/*************/
/*  CLASS S  */
/*************/
#if CLASS == 'S'
#define  TOTAL_KEYS_LOG_2    16
#define  MAX_KEY_LOG_2       11
#define  NUM_BUCKETS_LOG_2   9
#endif


/*************/
/*  CLASS W  */
/*************/
#if CLASS == 'W'
#define  TOTAL_KEYS_LOG_2    20
#define  MAX_KEY_LOG_2       16
#define  NUM_BUCKETS_LOG_2   10
#endif

/*************/
/*  CLASS A  */
/*************/
#if CLASS == 'A'
#define  TOTAL_KEYS_LOG_2    23
#define  MAX_KEY_LOG_2       19
#define  NUM_BUCKETS_LOG_2   10
#endif


#define  TOTAL_KEYS          (1 << TOTAL_KEYS_LOG_2)
#define  MAX_KEY             (1 << MAX_KEY_LOG_2)
#define  NUM_BUCKETS         (1 << NUM_BUCKETS_LOG_2)
#define  NUM_KEYS            TOTAL_KEYS
#define  SIZE_OF_BUFFERS     NUM_KEYS


#define  MAX_ITERATIONS      10
#define  TEST_ARRAY_SIZE     5


/*************************************/
/* Typedef: if necessary, change the */
/* size of int here by changing the  */
/* int type to, say, long            */
/*************************************/
typedef  int  INT_TYPE;


/********************/
/* Some global info */
/********************/
INT_TYPE *key_buff_ptr_global;         /* used by full_verify to get */
                                       /* copies of rank info        */

int      passed_verification;


/************************************/
/* These are the three main arrays. */
/* See SIZE_OF_BUFFERS def above    */
/************************************/
INT_TYPE key_array[SIZE_OF_BUFFERS],
         key_buff1[MAX_KEY],
         key_buff2[SIZE_OF_BUFFERS],
         partial_verify_vals[TEST_ARRAY_SIZE];


/**********************/
/* Partial verif info */
/**********************/
INT_TYPE test_index_array[TEST_ARRAY_SIZE],
         test_rank_array[TEST_ARRAY_SIZE],

         S_test_index_array[TEST_ARRAY_SIZE] =
                             {48427,17148,23627,62548,4431},
         S_test_rank_array[TEST_ARRAY_SIZE] =
                             {0,18,346,64917,65463},

         W_test_index_array[TEST_ARRAY_SIZE] =
                             {357773,934767,875723,898999,404505},
         W_test_rank_array[TEST_ARRAY_SIZE] =
                             {1249,11698,1039987,1043896,1048018},

         A_test_index_array[TEST_ARRAY_SIZE] =
                             {2112377,662041,5336171,3642833,4250760},
         A_test_rank_array[TEST_ARRAY_SIZE] =
                             {104,17523,123928,8288932,8388264};


/***********************/
/* function prototypes */
/***********************/
static double randlc( double *X, double *A );

static void full_verify( void );

static void create_seq( double seed, double a );

static void rank( int iteration );


/*
 *    FUNCTION RANDLC (X, A)
 *
 *  The uniform pseudorandom generator of the NPB,
 *
 *        x_{k+1} = a x_k  (mod 2^46),
 *
 *  with its constants computed on the first call.  X and A must be
 *  odd double precision integers in (1, 2^46); X is replaced by the
 *  next seed and 2^(-46) * x_{k+1} is returned.
 */
static double randlc( double *X, double *A )
{
      static int        KS=0;
      static double     R23, R46, T23, T46;
      double            T1, T2, T3, T4;
      double            A1;
      double            A2;
      double            X1;
      double            X2;
      double            Z;
      int               i, j;

      if (KS == 0)
      {
        R23 = 1.0;
        R46 = 1.0;
        T23 = 1.0;
        T46 = 1.0;

        for (i=1; i<=23; i++)
        {
          R23 = 0.50 * R23;
          T23 = 2.0 * T23;
        }
        for (i=1; i<=46; i++)
        {
          R46 = 0.50 * R46;
          T46 = 2.0 * T46;
        }
        KS = 1;
      }

/*  A = 2^23 * A1 + A2 */

      T1 = R23 * *A;
      j  = T1;
      A1 = j;
      A2 = *A - T23 * A1;

/*  X = 2^23 * X1 + X2, Z = A1 * X2 + A2 * X1  (mod 2^23), and then
    X = 2^23 * Z + A2 * X2  (mod 2^46).                            */

      T1 = R23 * *X;
      j  = T1;
      X1 = j;
      X2 = *X - T23 * X1;
      T1 = A1 * X2 + A2 * X1;

      j  = R23 * T1;
      T2 = j;
      Z = T1 - T23 * T2;
      T3 = T23 * Z + A2 * X2;
      j  = R46 * T3;
      T4 = j;
      *X = T3 - T46 * T4;
      return(R46 * *X);
}


/*****************************************************************/
/*************      C  R  E  A  T  E  _  S  E  Q      ************/
/*****************************************************************/

static void create_seq( double seed, double a )
{
        double x;
        INT_TYPE i, k;

        k = MAX_KEY/4;

        for (i=0; i<NUM_KEYS; i++)
        {
            x = randlc(&seed, &a);
            x += randlc(&seed, &a);
            x += randlc(&seed, &a);
            x += randlc(&seed, &a);

            key_array[i] = k*x;
        }
}


/*****************************************************************/
/*************    F  U  L  L  _  V  E  R  I  F  Y     ************/
/*****************************************************************/

static void full_verify( void )
{
    INT_TYPE    i, j;

/*  Now, finally, sort the keys:  */

/*  Copy keys into work array; keys in key_array will be reassigned. */
#pragma acc parallel loop gang vector present(key_array[0:NUM_KEYS], key_buff2[0:NUM_KEYS])
    for( i=0; i<NUM_KEYS; i++ )
        key_buff2[i] = key_array[i];

#pragma acc update host(key_buff2[0:NUM_KEYS])

/*  Every key goes to its rank, which the last ranking left in
    key_buff_ptr_global (its host copy)                            */
    for( i=0; i<NUM_KEYS; i++ )
        key_array[--key_buff_ptr_global[key_buff2[i]]] = key_buff2[i];

#pragma acc update device(key_array[0:NUM_KEYS])

/*  Confirm keys correctly sorted: count incorrectly sorted keys, if any */

    j = 0;
#pragma acc parallel loop gang vector reduction(+:j) present(key_array[0:NUM_KEYS])
    for( i=1; i<NUM_KEYS; i++ )
        if( key_array[i-1] > key_array[i] )
            j++;

    if( j != 0 )
        printf( "Full_verify: number of keys out of sort: %ld\n", (long)j );
    else
        passed_verification++;
}


/*****************************************************************/
/*************             R  A  N  K             ****************/
/*****************************************************************/

static void rank( int iteration )
{
    INT_TYPE    i, k;

#pragma acc parallel num_gangs(1) num_workers(1) vector_length(1) \
                     present(key_array[0:NUM_KEYS])
    {
    key_array[iteration] = iteration;
    key_array[iteration+MAX_ITERATIONS] = MAX_KEY - iteration;
    }

/*  Determine where the partial verify test keys are */
#pragma acc parallel loop present(key_array[0:NUM_KEYS], \
                                  test_index_array[0:TEST_ARRAY_SIZE], \
                                  partial_verify_vals[0:TEST_ARRAY_SIZE])
    for( i=0; i<TEST_ARRAY_SIZE; i++ )
        partial_verify_vals[i] = key_array[test_index_array[i]];

/*  Clear the work array */
#pragma acc parallel loop gang vector present(key_buff1[0:MAX_KEY])
    for( i=0; i<MAX_KEY; i++ )
        key_buff1[i] = 0;

/*  In this section, the keys themselves are used as their
    own indexes to determine how many of each there are: their
    individual population                                       */
#pragma acc parallel loop gang vector present(key_buff1[0:MAX_KEY], key_array[0:NUM_KEYS])
    for( i=0; i<NUM_KEYS; i++ )
    {
#pragma acc atomic update
        key_buff1[key_array[i]]++;
    }

/*  To obtain ranks of each key, successively add the individual key
    population                                                      */
#pragma acc kernels present(key_buff1[0:MAX_KEY])
    {
#pragma acc loop seq
    for( i=0; i<MAX_KEY-1; i++ )
        key_buff1[i+1] += key_buff1[i];
    }

#pragma acc update host(key_buff1[0:MAX_KEY], partial_verify_vals[0:TEST_ARRAY_SIZE])

/* This is the partial verify test section */
/* Observe that test_rank_array vals are   */
/* shifted differently for different cases */
    for( i=0; i<TEST_ARRAY_SIZE; i++ )
    {
        k = partial_verify_vals[i];          /* test vals were put here */
        if( 0 < k  &&  k <= NUM_KEYS-1 )
        {
            INT_TYPE key_rank = key_buff1[k-1];
            int failed = 0;

            switch( CLASS )
            {
                case 'S':
                    if( i <= 2 )
                    {
                        if( key_rank != test_rank_array[i]+iteration )
                            failed = 1;
                        else
                            passed_verification++;
                    }
                    else
                    {
                        if( key_rank != test_rank_array[i]-iteration )
                            failed = 1;
                        else
                            passed_verification++;
                    }
                    break;
                case 'W':
                    if( i < 2 )
                    {
                        if( key_rank != test_rank_array[i]+(iteration-2) )
                            failed = 1;
                        else
                            passed_verification++;
                    }
                    else
                    {
                        if( key_rank != test_rank_array[i]-iteration )
                            failed = 1;
                        else
                            passed_verification++;
                    }
                    break;
                case 'A':
                    if( i <= 2 )
                    {
                        if( key_rank != test_rank_array[i]+(iteration-1) )
                            failed = 1;
                        else
                            passed_verification++;
                    }
                    else
                    {
                        if( key_rank != test_rank_array[i]-(iteration-1) )
                            failed = 1;
                        else
                            passed_verification++;
                    }
                    break;
            }
            if( failed == 1 )
                printf( "Failed partial verification: "
                        "iteration %d, test key %d\n",
                         iteration, (int)i );
        }
    }

/*  Make copies of rank info for use by full_verify: these variables
    in rank are local; making them global slows down the code, probably
    since they cannot be made register by compiler                        */

    if( iteration == MAX_ITERATIONS )
        key_buff_ptr_global = key_buff1;
}


/*****************************************************************/
/*************             M  A  I  N             ****************/
/*****************************************************************/

int main( int argc, char **argv )
{
    int             i, iteration, timer_on;

    double          timecounter;

    FILE            *fp;


/*  Initialize timers  */
    timer_on = 0;
    if ((fp = fopen("timer.flag", "r")) != NULL) {
        fclose(fp);
        timer_on = 1;
    }
    timer_clear( 0 );
    if (timer_on) {
        timer_clear( 1 );
        timer_clear( 2 );
        timer_clear( 3 );
    }

    if (timer_on) timer_start( 3 );

#ifdef _OPENACC
    acc_init(acc_device_default);
#endif

/*  Initialize the verification arrays if a valid class */
    for( i=0; i<TEST_ARRAY_SIZE; i++ )
        switch( CLASS )
        {
            case 'S':
                test_index_array[i] = S_test_index_array[i];
                test_rank_array[i] = S_test_rank_array[i];
                break;
            case 'A':
                test_index_array[i] = A_test_index_array[i];
                test_rank_array[i] = A_test_rank_array[i];
                break;
            case 'W':
                test_index_array[i] = W_test_index_array[i];
                test_rank_array[i] = W_test_rank_array[i];
                break;
        };


/*  Printout initial NPB info */
    printf
      ( "\n\n NAS Parallel Benchmarks (NPB3.3-ACC-C) - IS Benchmark\n\n" );
    printf( " Size:  %ld  (class %c)\n", (long)TOTAL_KEYS, CLASS );
    printf( " Iterations:  %d\n", MAX_ITERATIONS );
    printf( "\n" );

    if (timer_on) timer_start( 1 );

/*  Generate random number sequence and subsequent keys on all procs */
    create_seq( 314159265.00,                    /* Random number gen seed */
                1220703125.00 );                 /* Random number gen mult */

    if (timer_on) timer_stop( 1 );

#pragma acc data copyin(key_array[0:SIZE_OF_BUFFERS], \
                        test_index_array[0:TEST_ARRAY_SIZE]) \
                 create(key_buff1[0:MAX_KEY], key_buff2[0:SIZE_OF_BUFFERS], \
                        partial_verify_vals[0:TEST_ARRAY_SIZE])
{
/*  Do one interation for free (i.e., untimed) to guarantee initialization of
    all data and code pages and respective tables */
    rank( 1 );

/*  Start verification counter */
    passed_verification = 0;

    if( CLASS != 'S' ) printf( "\n   iteration\n" );

/*  Start timer  */
    timer_start( 0 );


/*  This is the main iteration */
    for( iteration=1; iteration<=MAX_ITERATIONS; iteration++ )
    {
        if( CLASS != 'S' ) printf( "        %d\n", iteration );
        rank( iteration );
    }


/*  End of timing, obtain maximum time of all processors */
    timer_stop( 0 );
    timecounter = timer_read( 0 );


/*  This tests that keys are in sequence: sorting of last ranked key seq
    occurs here, but is an untimed operation                             */
    if (timer_on) timer_start( 2 );
    full_verify();
    if (timer_on) timer_stop( 2 );
} /* end acc data */

    if (timer_on) timer_stop( 3 );


/*  The final printout  */
    if( passed_verification != 5*MAX_ITERATIONS + 1 )
        passed_verification = 0;

    printf( " Keys ranked:        %d\n", TOTAL_KEYS );
    printf( " Tests passed:       %d of %d\n",
            passed_verification, 5*MAX_ITERATIONS + 1 );
    if( passed_verification )
        printf( " VERIFICATION SUCCESSFUL\n" );
    else
        printf( " VERIFICATION FAILED\n" );

    print_results( "IS",
                   CLASS,
                   (int)(TOTAL_KEYS),
                   0,
                   0,
                   MAX_ITERATIONS,
                   timecounter,
                   ((double) (MAX_ITERATIONS*TOTAL_KEYS))
                                                /timecounter/1000000.,
                   "keys ranked",
                   passed_verification ? true : false,
                   NPBVERSION,
                   COMPILETIME,
                   CC,
                   CLINK,
                   C_LIB,
                   C_INC,
                   CFLAGS,
                   CLINKFLAGS,
                   "randlc");


/*  Print additional timers  */
    if (timer_on) {
       double t_total, t_percent;

       t_total = timer_read( 3 );
       printf("\nAdditional timers -\n");
       printf(" Total execution: %8.3f\n", t_total);
       if (t_total == 0.0) t_total = 1.0;
       timecounter = timer_read(1);
       t_percent = timecounter/t_total * 100.;
       printf(" Initialization : %8.3f (%5.2f%%)\n", timecounter, t_percent);
       timecounter = timer_read(0);
       t_percent = timecounter/t_total * 100.;
       printf(" Benchmarking   : %8.3f (%5.2f%%)\n", timecounter, t_percent);
       timecounter = timer_read(2);
       t_percent = timecounter/t_total * 100.;
       printf(" Sorting        : %8.3f (%5.2f%%)\n", timecounter, t_percent);
    }

#ifdef _OPENACC
    acc_shutdown(acc_device_default);
#endif
    return 0;
         /**************************/
}        /*  E N D  P R O G R A M  */
         /**************************/
