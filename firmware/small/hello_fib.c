#include <unistd.h>
#include <string.h>
static int fib(int n){ return n<2?n:fib(n-1)+fib(n-2); }
int main(){ const char*m="hello from epiphany\n"; write(1,m,strlen(m)); int f=fib(20); char b[16]; int i=15; b[i]=0; do { b[--i]='0'+f%10; f/=10;} while(f); write(1,b+i,strlen(b+i)); write(1,"\n",1); return 7; }
