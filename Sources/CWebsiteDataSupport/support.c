// The target's code is the inline function of its header; this file makes it a C target.
#include "CWebsiteDataSupport.h"
