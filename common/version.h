/* kforge's own version: printed by the CLI and stored with every evaluation so a number can be
 * traced to the code that measured it. */
#ifndef KF_VERSION_H
#define KF_VERSION_H

#define KF_VERSION_STRING "0.1.0"

#endif
