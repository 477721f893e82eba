#include "core/Version.h"
#include <iostream>
int main() { std::cout << pto::kVersion << "\n"; }
