print("wkstore")
