! A Fortran program writing one shared file through MPI-IO, as codes such as EPCC's benchio do
! (its published description): each rank an n x n x n block of doubles, placed by a
! Fortran-order subarray view, written collectively. Open MPI's Fortran bindings call the
! PMPI_ functions directly, MPICH's the MPI_ ones: the interposer must see both.
!   mpiio_fortran DIR      (writes DIR/fortran.dat)
program mpiio_fortran
  implicit none
  include 'mpif.h'
  integer, parameter :: n = 8
  integer :: ierr, rank, nranks, fh, filetype, i, j, k
  integer :: sizes(3), subsizes(3), starts(3)
  integer(kind=MPI_OFFSET_KIND) :: disp
  double precision :: block(n, n, n)
  character(len=4096) :: dir

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, dir)
  do k = 1, n
    do j = 1, n
      do i = 1, n
        block(i, j, k) = rank * 1000000 + i + 100 * j + 10000 * k
      end do
    end do
  end do
  sizes = (/ n, n, n * nranks /)
  subsizes = (/ n, n, n /)
  starts = (/ 0, 0, n * rank /)
  call MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_FORTRAN, &
                                MPI_DOUBLE_PRECISION, filetype, ierr)
  call MPI_Type_commit(filetype, ierr)
  call MPI_File_open(MPI_COMM_WORLD, trim(dir) // '/fortran.dat', &
                     MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)
  if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  disp = 0
  call MPI_File_set_view(fh, disp, MPI_DOUBLE_PRECISION, filetype, 'native', MPI_INFO_NULL, ierr)
  call MPI_File_write_all(fh, block, n * n * n, MPI_DOUBLE_PRECISION, MPI_STATUS_IGNORE, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_Type_free(filetype, ierr)
  call MPI_Finalize(ierr)
end program mpiio_fortran
