/*
 * DAT 1.2 public headers (datcts implementation).
 * Place for vendor extensions shared by uDAPL and kDAPL. datcts defines
 * none, so the 1.2 ABI is exactly what <dat/dat.h> declares.
 */
#ifndef DAT_VENDOR_SPECIFIC_H_
#define DAT_VENDOR_SPECIFIC_H_

#endif /* DAT_VENDOR_SPECIFIC_H_ */
