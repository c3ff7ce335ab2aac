/*
 * DAT 1.2 public headers (datcts implementation).
 * Platform base types. LP64 Linux: DAT_COUNT is int, pointers and
 * DAT_UINT64 are 8 bytes; the ABI of every structure follows from this.
 */
#ifndef DAT_PLATFORM_SPECIFIC_H_
#define DAT_PLATFORM_SPECIFIC_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>

/* Parameter direction markers used by the published prototypes; no effect. */
#ifndef IN
#define IN
#endif
#ifndef OUT
#define OUT
#endif
#ifndef INOUT
#define INOUT
#endif

#define DAT_EXPORT extern

typedef uint32_t		DAT_UINT32;
typedef uint64_t		DAT_UINT64;
typedef unsigned long long	DAT_UVERYLONG;
typedef void			*DAT_PVOID;
typedef int			DAT_COUNT;
typedef DAT_UINT64		DAT_PADDR;

typedef struct sockaddr		DAT_SOCK_ADDR;
typedef struct sockaddr_in6	DAT_SOCK_ADDR6;

#endif /* DAT_PLATFORM_SPECIFIC_H_ */
