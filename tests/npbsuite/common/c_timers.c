#include "wtime.h"
#include "timers.h"

//---------------------------------------------------------------------
// 64 accumulating wall-clock timers.
//---------------------------------------------------------------------
double start[64], elapsed[64];

static double elapsed_time( void )
{
  double t;

  wtime( &t );
  return( t );
}


void timer_clear( int n )
{
  elapsed[n] = 0.0;
}


void timer_start( int n )
{
  start[n] = elapsed_time();
}


void timer_stop( int n )
{
  double t, now;

  now = elapsed_time();
  t = now - start[n];
  elapsed[n] += t;
}


double timer_read( int n )
{
  return( elapsed[n] );
}
