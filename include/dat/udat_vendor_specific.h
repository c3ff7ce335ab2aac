/*
 * DAT 1.2 public headers (datcts implementation).
 * Place for uDAPL vendor extensions. datcts defines none.
 */
#ifndef UDAT_VENDOR_SPECIFIC_H_
#define UDAT_VENDOR_SPECIFIC_H_

#endif /* UDAT_VENDOR_SPECIFIC_H_ */
