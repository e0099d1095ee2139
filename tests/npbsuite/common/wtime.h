#ifndef __WTIME_H__
#define __WTIME_H__

void wtime( double *t );

#endif //__WTIME_H__
