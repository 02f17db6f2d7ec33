module example.com/toolcall-go-adapter

go 1.19
